import type { Receipt } from '@toolgate/core';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CraftedUpstream,
  openAISse,
  startCraftedUpstream,
} from '../testing/crafted-upstream.ts';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * OpenAI's deprecated `functions` + `function_call`, through the gateway with the official
 * `openai` SDK: mediated like `tools` on the way out (hidden, augmented, renamed, history
 * renamed, a `function_call` naming a hidden function dropped) and on the way back (an allowed
 * `function_call` renamed back, a hidden one dropped without a fragment), streaming and not.
 */

let upstream: CraftedUpstream;
let gw: TestGateway;
let openai: OpenAI;

const fn = (name: string) => ({
  name,
  description: `${name} function`,
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
});
const FUNCTIONS = [fn('search_code'), fn('create_pull_request'), fn('github/create_issue')];

function completion(functionCall: { name: string; arguments: string }) {
  return {
    id: 'chatcmpl-legacy',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-4o-mini',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, function_call: functionCall },
        logprobs: null,
        finish_reason: 'function_call',
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

function streamed(name: string, pieces: string[]) {
  const chunk = (delta: object, finish: string | null = null) => ({
    id: 'chatcmpl-legacy',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  return openAISse([
    chunk({ role: 'assistant', content: null, function_call: { name, arguments: '' } }),
    ...pieces.map((p) => chunk({ function_call: { arguments: p } })),
    chunk({}, 'function_call'),
  ]);
}

function request(extra: object = {}) {
  return {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user' as const, content: 'go' }],
    functions: FUNCTIONS,
    ...extra,
  };
}

async function lastReceipt(): Promise<Receipt> {
  return (await servedReceipts(gw.spool, 10_000)).at(-1) as Receipt;
}

beforeAll(async () => {
  upstream = await startCraftedUpstream();
  gw = await startTestGateway({ upstreamUrl: upstream.url });
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
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-test-FAKE', maxRetries: 0 });
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

describe('legacy functions on the way to the provider', () => {
  it('mediates functions like tools, history and function_call included', async () => {
    upstream.answer({ json: completion({ name: 'search_code', arguments: '{}' }) });
    await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'user', content: 'file an issue' },
        {
          role: 'assistant',
          content: null,
          function_call: { name: 'github/create_issue', arguments: '{"q":"x"}' },
        },
        { role: 'function', name: 'github/create_issue', content: 'filed' },
        { role: 'user', content: 'now open a PR' },
      ],
      functions: FUNCTIONS,
      function_call: { name: 'create_pull_request' },
    });
    const seen = upstream.requests.at(-1) as Record<string, unknown> & {
      functions: Array<{ name: string; description?: string }>;
      messages: Array<Record<string, unknown>>;
    };
    expect(seen.functions.map((f) => f.name)).toEqual(['search_code', 'gh_issue']);
    expect(seen.functions[0]?.description).toBe('search_code function\n\nOnly acme repos.');
    expect(seen).not.toHaveProperty('tools');
    // A forced call to the hidden function is dropped, never sent.
    expect(seen).not.toHaveProperty('function_call');
    expect(JSON.stringify(seen)).not.toContain('create_pull_request');
    expect(seen.messages[1]?.function_call).toEqual({ name: 'gh_issue', arguments: '{"q":"x"}' });
    expect(seen.messages[2]).toMatchObject({ role: 'function', name: 'gh_issue' });
  });

  it('renames a forced function_call to the provider alias', async () => {
    upstream.answer({ json: completion({ name: 'gh_issue', arguments: '{}' }) });
    await openai.chat.completions.create(
      request({ function_call: { name: 'github/create_issue' } }),
    );
    expect((upstream.requests.at(-1) as { function_call: unknown }).function_call).toEqual({
      name: 'gh_issue',
    });
  });

  it.each([
    ['functions with tools', { tools: [{ type: 'function', function: fn('x') }] }, 'tools'],
    ['functions with tool_choice', { tool_choice: 'auto' }, 'tool_choice'],
  ])('refuses %s with a 400 naming the field', async (_name, extra, field) => {
    const before = upstream.requests.length;
    const error = await openai.chat.completions.create(request(extra) as never).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(String(error.message)).toContain(`${field}: cannot be combined with`);
    expect(upstream.requests.length).toBe(before);
  });

  it('refuses function_call alongside tools (it would reach the provider unmediated)', async () => {
    const error = await openai.chat.completions
      .create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'go' }],
        tools: FUNCTIONS.map((f) => ({ type: 'function' as const, function: f })),
        function_call: { name: 'create_pull_request' },
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(String(error.message)).toContain('function_call: is only valid with');
  });
});

describe('legacy function_call on the way back', () => {
  it('gives the agent an allowed function_call under its own name', async () => {
    upstream.answer({ json: completion({ name: 'gh_issue', arguments: '{"q":"retries"}' }) });
    const result = await openai.chat.completions.create(request());
    const choice = result.choices[0];
    expect(choice?.message.function_call).toEqual({
      name: 'github/create_issue',
      arguments: '{"q":"retries"}',
    });
    expect(choice?.finish_reason).toBe('function_call');
    expect((await lastReceipt()).response?.tool_calls[0]).toMatchObject({
      name: 'github/create_issue',
      provider_name: 'gh_issue',
      policy_state: 'allowed',
    });
  });

  it('drops a function_call to a hidden function', async () => {
    upstream.answer({
      json: completion({ name: 'create_pull_request', arguments: '{"q":"LEAK-CANARY"}' }),
    });
    const result = await openai.chat.completions.create(request());
    expect(JSON.stringify(result)).not.toContain('LEAK-CANARY');
    expect(result.choices[0]?.message.function_call).toBeUndefined();
    expect(result.choices[0]?.finish_reason).toBe('stop');
    expect((await lastReceipt()).response?.tool_calls[0]).toMatchObject({
      name: 'create_pull_request',
      policy_state: 'blocked',
      reason: 'hidden',
    });
  });

  it('streams an allowed function_call renamed back, whole', async () => {
    upstream.answer({ sse: streamed('gh_issue', ['{"q":', '"retries"}']) });
    const stream = await openai.chat.completions.create({ ...request(), stream: true });
    let name = '';
    let args = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      name += delta?.function_call?.name ?? '';
      args += delta?.function_call?.arguments ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe('github/create_issue');
    expect(JSON.parse(args)).toEqual({ q: 'retries' });
    expect(finish).toBe('function_call');
  });

  it('streams nothing of a function_call to a hidden function', async () => {
    upstream.answer({ sse: streamed('create_pull_request', ['{"q":', '"LEAK-CANARY"}']) });
    const stream = await openai.chat.completions.create({ ...request(), stream: true });
    let raw = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      raw += JSON.stringify(chunk);
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(raw).not.toContain('LEAK-CANARY');
    expect(raw).not.toContain('create_pull_request');
    expect(finish).toBe('stop');
  });
});
