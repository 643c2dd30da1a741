import Anthropic from '@anthropic-ai/sdk';
import { type Receipt, verifyChain } from '@toolgate/core';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  COMPACT_POLICY,
  CREATE_ISSUE_DESCRIPTION,
  CREATE_ISSUE_SCHEMA,
  DISCLOSURE_SCRIPT,
  GREEDY_SCRIPT,
  ISSUE_ARGUMENTS,
  LIST_ISSUES_SCHEMA,
  say,
} from '../testing/hosted-fixtures.ts';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * The tool loop on OpenAI Chat Completions and Anthropic Messages, through the official SDKs,
 * against the real mock provider: progressive disclosure (`compact` + `tool_info`), budgets.
 * Responses and Gemini: tool-loop-surfaces.test.ts; HostedTools: tool-loop-hosted.test.ts.
 */

let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

const chatTools: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'create_issue',
      description: CREATE_ISSUE_DESCRIPTION,
      parameters: CREATE_ISSUE_SCHEMA as never,
    },
  },
  {
    type: 'function',
    function: { name: 'list_issues', description: 'List issues', parameters: LIST_ISSUES_SCHEMA },
  },
];
const anthropicTools: Anthropic.Tool[] = [
  {
    name: 'create_issue',
    description: CREATE_ISSUE_DESCRIPTION,
    input_schema: CREATE_ISSUE_SCHEMA as never,
  },
  { name: 'list_issues', description: 'List issues', input_schema: LIST_ISSUES_SCHEMA as never },
];

type Logged = { body: Record<string, unknown> };
const providerRequests = () => gw.mock.requests.last(20) as unknown as Logged[];

async function lastReceipt(): Promise<Receipt> {
  const receipts = await servedReceipts(gw.spool, 10_000);
  return receipts.at(-1) as Receipt;
}

beforeAll(async () => {
  gw = await startTestGateway();
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-test-FAKE', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'sk-ant-test-FAKE', maxRetries: 0 });
});
afterAll(() => gw.close());
beforeEach(async () => {
  gw.mock.requests.clear();
  await gw.applyPolicies([COMPACT_POLICY()]);
});

/** The second provider request holds tool_info's call and the full schema as its result. */
function expectDisclosedSchema(resultText: string) {
  const info = JSON.parse(resultText) as { name: string; parameters: unknown };
  expect(info.name).toBe('create_issue');
  expect(info.parameters).toEqual(CREATE_ISSUE_SCHEMA);
}

async function expectReceipt(stream: boolean) {
  const receipt = await lastReceipt();
  expect(receipt.stream).toBe(stream);
  expect(receipt.hosted?.rounds).toHaveLength(1);
  expect(receipt.hosted?.rounds[0]?.calls).toMatchObject([
    { name: 'tool_info', tool: 'tool_info', outcome: 'ok', is_error: false, fidelity: 'emulated' },
  ]);
  expect(receipt.hosted?.exhausted).toBeUndefined();
  expect(receipt.hosted?.budget).toEqual({
    max_calls: 8,
    max_rounds: 4,
    max_added_latency_ms: 30_000,
  });
  // The agent's call is in the response evidence; tool_info's is not (the agent never saw it).
  expect(receipt.response?.tool_calls.map((c) => c.name)).toEqual(['create_issue']);
  expect(receipt.tools.find((t) => t.name === 'tool_info')).toMatchObject({
    declared_by: 'wardwright',
    executed_by: 'wardwright',
    visible_to_agent: false,
  });
  const all = await servedReceipts(gw.spool, 10_000);
  expect(verifyChain(all).valid).toBe(true);
}

describe('OpenAI Chat Completions (official openai SDK)', () => {
  const request = () => ({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user' as const, content: say(DISCLOSURE_SCRIPT) }],
    tools: chatTools,
  });

  it('compacts the catalog: the provider sees parameter names and tool_info', async () => {
    await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello' }],
      tools: chatTools,
    });
    const [seen] = providerRequests();
    const tools = seen?.body.tools as OpenAI.ChatCompletionTool[];
    expect(tools.map((t) => (t as { function: { name: string } }).function.name)).toEqual([
      'create_issue',
      'list_issues',
      'tool_info',
    ]);
    expect((tools[0] as { function: unknown }).function).toEqual({
      name: 'create_issue',
      description: 'Create a new issue in a GitHub reposito…',
      parameters: { type: 'object', properties: { owner: {}, repo: {}, title: {}, labels: {} } },
    });
  });

  it('runs tool_info, calls again, and the agent sees only the final turn', async () => {
    const completion = await openai.chat.completions.create(request());
    const message = completion.choices[0]?.message;
    expect(message?.tool_calls).toHaveLength(1);
    const call = message?.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe('create_issue');
    expect(JSON.parse(call.function.arguments)).toEqual(ISSUE_ARGUMENTS);
    expect(JSON.stringify(completion)).not.toContain('tool_info');

    const logged = providerRequests();
    expect(logged).toHaveLength(2);
    const messages = logged[1]?.body.messages as Array<Record<string, unknown>>;
    const [assistant, tool] = messages.slice(-2);
    const hosted = (
      (assistant as Record<string, unknown>).tool_calls as Array<{
        id: string;
        function: { name: string };
      }>
    )[0];
    expect(hosted?.function.name).toBe('tool_info');
    expect(tool).toMatchObject({ role: 'tool', tool_call_id: hosted?.id });
    expectDisclosedSchema(tool?.content as string);
    await expectReceipt(false);
  });

  it('streams the final turn, well-formed for the SDK', async () => {
    const stream = await openai.chat.completions.create({ ...request(), stream: true });
    const indices = new Set<number>();
    let args = '';
    let name = '';
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        indices.add(call.index);
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
    }
    expect([...indices]).toEqual([0]);
    expect(name).toBe('create_issue');
    expect(JSON.parse(args)).toEqual(ISSUE_ARGUMENTS);
    const logged = providerRequests();
    expect(logged).toHaveLength(2);
    const messages = logged[1]?.body.messages as Array<Record<string, unknown>>;
    expectDisclosedSchema(messages.at(-1)?.content as string);
    await expectReceipt(true);
  });

  it('stops at the round budget: the agent gets the last answer with a note', async () => {
    await gw.applyPolicies([COMPACT_POLICY({ maxRounds: 2 })]);
    const completion = await openai.chat.completions.create({
      ...request(),
      messages: [{ role: 'user', content: say(GREEDY_SCRIPT) }],
    });
    const message = completion.choices[0]?.message;
    expect(message?.tool_calls).toBeUndefined();
    expect(message?.content).toMatch(/hosted-tool budget is exhausted/);
    expect(providerRequests()).toHaveLength(3);
    const receipt = await lastReceipt();
    expect(receipt.hosted?.exhausted).toBe('max_rounds');
    expect(receipt.hosted?.rounds).toHaveLength(2);
    expect(receipt.hosted?.budget.max_rounds).toBe(2);
    expect(receipt.response?.tool_calls[0]).toMatchObject({
      name: 'tool_info',
      policy_state: 'blocked',
      reason: 'hosted',
    });
  });

  it('stops at the call budget while streaming, the stream well-formed', async () => {
    await gw.applyPolicies([COMPACT_POLICY({ maxCalls: 1 })]);
    const stream = openai.chat.completions.stream({
      ...request(),
      messages: [{ role: 'user', content: say(GREEDY_SCRIPT) }],
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.message.tool_calls ?? []).toEqual([]);
    expect(final.choices[0]?.message.content).toMatch(/hosted-tool budget is exhausted/);
    expect((await lastReceipt()).hosted?.exhausted).toBe('max_calls');
  });

  it('refuses an agent tool named tool_info while tools are compacted (400)', async () => {
    const attempt = openai.chat.completions.create({
      ...request(),
      tools: [...chatTools, { type: 'function', function: { name: 'tool_info' } }],
    });
    await expect(attempt).rejects.toMatchObject({ status: 400 });
    await expect(attempt).rejects.toThrow(/tools\[2\]\.name/);
    expect(providerRequests()).toHaveLength(0);
  });

  it('forwards an agent-only turn unchanged: no hosted round, no hosted block', async () => {
    const completion = await openai.chat.completions.create({
      ...request(),
      messages: [
        {
          role: 'user',
          content: say({ call: 'list_issues', arguments: { owner: 'a', repo: 'b' } }),
        },
      ],
    });
    expect(completion.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      function: { name: 'list_issues' },
    });
    expect(providerRequests()).toHaveLength(1);
    expect((await lastReceipt()).hosted).toBeUndefined();
  });
});

describe('Anthropic Messages (official @anthropic-ai/sdk)', () => {
  const request = () => ({
    model: 'claude-sonnet-4-5',
    max_tokens: 512,
    messages: [{ role: 'user' as const, content: say(DISCLOSURE_SCRIPT) }],
    tools: anthropicTools,
  });

  function expectAnthropicRound() {
    const logged = providerRequests();
    expect(logged).toHaveLength(2);
    const messages = logged[1]?.body.messages as Array<{ role: string; content: unknown }>;
    const [assistant, user] = messages.slice(-2);
    const use = (
      (assistant as Record<string, unknown>).content as Array<Record<string, unknown>>
    ).find((b) => b.type === 'tool_use');
    expect(use).toMatchObject({ name: 'tool_info', input: { name: 'create_issue' } });
    const result = ((user as Record<string, unknown>).content as Array<Record<string, unknown>>)[0];
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: use?.id });
    expectDisclosedSchema(result?.content as string);
  }

  it('runs tool_info and the agent sees only the final turn', async () => {
    const message = await anthropic.messages.create(request());
    const uses = message.content.filter((b) => b.type === 'tool_use');
    expect(uses).toHaveLength(1);
    expect(uses[0]).toMatchObject({ name: 'create_issue', input: ISSUE_ARGUMENTS });
    expect(message.stop_reason).toBe('tool_use');
    expect(JSON.stringify(message)).not.toContain('tool_info');
    expectAnthropicRound();
    await expectReceipt(false);
  });

  it('streams the final turn, indices consistent for the SDK', async () => {
    const stream = anthropic.messages.stream(request());
    const starts: number[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_start') starts.push(event.index);
    });
    const message = await stream.finalMessage();
    expect(starts.length).toBeGreaterThan(0);
    expect(starts).toEqual(starts.map((_, i) => i));
    const use = message.content.find((b) => b.type === 'tool_use');
    expect(use).toMatchObject({ name: 'create_issue', input: ISSUE_ARGUMENTS });
    expectAnthropicRound();
    await expectReceipt(true);
  });

  it('stops at the round budget while streaming, with a note', async () => {
    await gw.applyPolicies([COMPACT_POLICY({ maxRounds: 1 })]);
    const message = await anthropic.messages
      .stream({ ...request(), messages: [{ role: 'user', content: say(GREEDY_SCRIPT) }] })
      .finalMessage();
    expect(message.content.filter((b) => b.type === 'tool_use')).toEqual([]);
    const text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    expect(text).toMatch(/hosted-tool budget is exhausted/);
    expect((await lastReceipt()).hosted?.exhausted).toBe('max_rounds');
  });
});
