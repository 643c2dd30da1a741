import Anthropic from '@anthropic-ai/sdk';
import { type Receipt, verifyChain } from '@toolgate/core';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

const fn = (name: string, description = `${name} tool`) => ({
  type: 'function' as const,
  function: {
    name,
    description,
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
  },
});
const anthropicTool = (name: string) => ({
  name,
  description: `${name} tool`,
  input_schema: { type: 'object' as const, properties: { q: { type: 'string' } } },
});
const TOOLS = [fn('search_code'), fn('create_pull_request'), fn('github/create_issue')];
/** The mock provider reads its script from the last user message (`mock: {json}`). */
const say = (value: object) => `mock: ${JSON.stringify(value)}`;

/** What the provider last saw. */
type ProviderTool = { function: { name: string; description?: string } };
async function lastProviderRequest(): Promise<{ tools?: ProviderTool[] }> {
  const [last] = gw.mock.requests.last(1);
  return last?.body as { tools?: ProviderTool[] };
}

function spooled(): Promise<Receipt[]> {
  return servedReceipts(gw.spool, 10_000);
}

beforeAll(async () => {
  gw = await startTestGateway();
  await gw.applyPolicies([
    {
      name: 'guardrails',
      spec: {
        rules: [
          { id: 'hide-pr', action: 'hide', match: { name: 'create_pull_request' } },
          {
            id: 'scope',
            action: 'augment',
            match: { name: 'search_code' },
            description_append: 'Only acme repos.',
          },
          { id: 'gh', action: 'rename', match: { name: 'github/create_issue' }, alias: 'gh_issue' },
        ],
      },
    },
  ]);
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-test-FAKE-agent-key', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'sk-ant-test-FAKE', maxRetries: 0 });
});
afterAll(() => gw.close());
beforeEach(() => gw.mock.requests.clear());

describe('OpenAI Chat Completions through the gateway (official openai SDK)', () => {
  it('shows the provider exactly the mediated tools', async () => {
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'list your tools' }],
      tools: TOOLS,
    });
    const seen = await lastProviderRequest();
    expect(seen.tools?.map((t) => t.function.name)).toEqual(['search_code', 'gh_issue']);
    expect(seen.tools?.[0]?.function.description).toBe('search_code tool\n\nOnly acme repos.');
    expect(completion.choices[0]?.message.content).toBe('mock: 2 tools: search_code, gh_issue');
  });

  it('renames a call back to the agent’s own name', async () => {
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'user', content: say({ call: 'gh_issue', arguments: { title: 'retries' } }) },
      ],
      tools: TOOLS,
    });
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('github/create_issue');
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({
      title: 'retries',
    });
  });

  it('blocks a call to a hidden tool, streaming, without leaking a fragment', async () => {
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        {
          role: 'user',
          content: say({ call: 'create_pull_request', arguments: { title: 'LEAK-CANARY-7731' } }),
        },
      ],
      tools: TOOLS,
      stream: true,
    });
    let raw = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      raw += JSON.stringify(chunk);
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(raw).not.toContain('LEAK-CANARY');
    expect(raw).not.toContain('create_pull_request');
    expect(finish).toBe('stop');
    const receipt = (await spooled()).at(-1) as Receipt;
    expect(receipt.stream).toBe(true);
    expect(receipt.response?.tool_calls[0]).toMatchObject({
      name: 'create_pull_request',
      policy_state: 'blocked',
      reason: 'hidden',
    });
  });

  it('streams an allowed call renamed back, assembled by the SDK', async () => {
    const stream = openai.chat.completions.stream({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'user', content: say({ call: 'gh_issue', arguments: { title: 'streamed' } }) },
      ],
      tools: TOOLS,
    });
    const final = await stream.finalChatCompletion();
    const call = final.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('github/create_issue');
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({
      title: 'streamed',
    });
  });

  it('passes provider errors through as the SDK expects them', async () => {
    const error = await openai.chat.completions
      .create({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'user', content: say({ error: { status: 429, message: 'slow down' } }) },
        ],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const receipt = (await spooled()).at(-1) as Receipt;
    expect(receipt.outcome).toEqual({ status: 429, error: 'slow down' });
  });

  it('answers a malformed request with a 400 and never forwards it', async () => {
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'm',
        messages: [],
        tools: [{ type: 'function', function: {} }],
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
      'tools[0].function.name',
    );
    expect(gw.mock.requests.last(10)).toHaveLength(0);
  });
});

describe('Anthropic Messages through the gateway (official @anthropic-ai/sdk)', () => {
  const tools = [anthropicTool('search_code'), anthropicTool('create_pull_request')];

  it('hides, and blocks a streamed call to the hidden tool', async () => {
    const plain = await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'list your tools' }],
      tools,
    });
    expect(plain.content[0]).toMatchObject({ type: 'text', text: 'mock: 1 tool: search_code' });

    const stream = anthropic.messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      messages: [
        {
          role: 'user',
          content: say({ call: 'create_pull_request', arguments: { title: 'LEAK-CANARY-9' } }),
        },
      ],
      tools,
    });
    let raw = '';
    stream.on('streamEvent', (event) => {
      raw += JSON.stringify(event);
    });
    const final = await stream.finalMessage();
    expect(raw).not.toContain('LEAK-CANARY');
    expect(final.content.some((b) => b.type === 'tool_use')).toBe(false);
    expect(final.stop_reason).toBe('end_turn');
  });

  it('lets an allowed streamed call through', async () => {
    const final = await anthropic.messages
      .stream({
        model: 'claude-sonnet-4-5',
        max_tokens: 64,
        messages: [
          { role: 'user', content: say({ call: 'search_code', arguments: { q: 'retries' } }) },
        ],
        tools,
      })
      .finalMessage();
    expect(final.content.find((b) => b.type === 'tool_use')).toMatchObject({
      name: 'search_code',
      input: { q: 'retries' },
    });
  });
});

describe('an agent that goes away', () => {
  /** The receipt of the next request once it is spooled (the spool only grows here). */
  async function nextReceipt(before: number): Promise<Receipt> {
    await expect.poll(async () => (await spooled()).length, { timeout: 5000 }).toBe(before + 1);
    return (await spooled()).at(-1) as Receipt;
  }
  const post = (body: object, signal: AbortSignal) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', ...body }),
      signal,
    });

  it('mid-stream: the provider call is stopped and the receipt says so', async () => {
    const before = (await spooled()).length;
    const agent = new AbortController();
    // Five more deltas, a second apart: only an aborted provider call ends this early.
    const words = 'one two three four five six';
    const response = await post(
      {
        messages: [{ role: 'user', content: say({ text: words, chunkDelayMs: 1000 }) }],
        stream: true,
      },
      agent.signal,
    );
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const cut = performance.now();
    agent.abort();
    const receipt = await nextReceipt(before);
    expect(performance.now() - cut).toBeLessThan(2000);
    expect(receipt.stream).toBe(true);
    expect(receipt.outcome).toEqual({ status: 499, error: 'client disconnected' });
  });

  it('before the answer: the provider call is stopped and the receipt says so', async () => {
    const before = (await spooled()).length;
    const agent = new AbortController();
    const request = post(
      { messages: [{ role: 'user', content: say({ text: 'late', latencyMs: 5000 }) }] },
      agent.signal,
    ).catch((error: Error) => error);
    await expect.poll(() => gw.mock.requests.last(1).length).toBe(1);
    const cut = performance.now();
    agent.abort();
    expect(await request).toBeInstanceOf(Error);
    const receipt = await nextReceipt(before);
    expect(performance.now() - cut).toBeLessThan(2000);
    expect(receipt.outcome).toEqual({ status: 499, error: 'client disconnected' });
  });
});

describe('receipts', () => {
  it('spools one chained receipt per request, without any key', async () => {
    const before = (await spooled()).length;
    await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      tools: TOOLS,
    });
    const receipts = await spooled();
    expect(receipts.length).toBe(before + 1);
    expect(verifyChain(receipts).valid).toBe(true);
    const text = JSON.stringify(await gw.spool.pending(10_000));
    expect(text).not.toContain('sk-test-FAKE');
    expect(text).not.toContain('sk-ant-test-FAKE');
    expect(receipts.at(-1)?.wardwright_tool_mediation?.applied_rules.map((r) => r.id)).toEqual([
      'hide-pr',
      'scope',
      'gh',
    ]);
  });
});
