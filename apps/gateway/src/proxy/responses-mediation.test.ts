import { hashLenient, type Receipt } from '@toolgate/core';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * The OpenAI Responses API (`POST /v1/responses`) through a real gateway in front of the mock
 * provider, driven by the official `openai` SDK with only baseURL changed: every request-side
 * action as the provider sees it, a hidden call never reaching the agent (streamed or not), the
 * rename round trip of the Responses tool-call loop (function_call → function_call_output →
 * next response) with its receipts, and bad input refused with the field named.
 */

let gw: TestGateway;
let openai: OpenAI;

const fn = (name: string, description = `${name} tool`): OpenAI.Responses.FunctionTool => ({
  type: 'function',
  name,
  description,
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
  strict: false,
});
const TOOLS: OpenAI.Responses.Tool[] = [
  fn('search_code'),
  fn('create_pull_request'),
  fn('github/create_issue'),
  fn('fetch'),
  fn('delete_repo'),
];
const HEADERS = { 'x-user-id': 'alice', 'x-session-id': 'responses' };

/** A user turn that scripts the mock provider's answer (the gateway forwards no test header). */
const scripted = (script: object): OpenAI.Responses.ResponseInputItem => ({
  role: 'user',
  content: `mock: ${JSON.stringify(script)}`,
});

const lastSeen = () => gw.mock.requests.last(1)[0]?.body as Record<string, unknown>;

async function lastReceipts(count: number): Promise<Receipt[]> {
  return (await servedReceipts(gw.spool)).slice(-count);
}

beforeAll(async () => {
  gw = await startTestGateway();
  await gw.applyPolicies([
    {
      name: 'guardrails',
      spec: {
        redact: ['token'],
        rules: [
          { id: 'hide-pr', action: 'hide', match: { name: 'create_pull_request' } },
          { id: 'hide-delete', action: 'hide', match: { name: 'delete_repo' } },
          {
            id: 'scope',
            action: 'augment',
            match: { name: 'search_code' },
            description_append: 'Only acme repos.',
          },
          {
            id: 'vetted-fetch',
            action: 'replace',
            match: { name: 'fetch' },
            tool: { name: 'fetch', description: 'Vetted fetch', parameters: { type: 'object' } },
          },
          { id: 'gh', action: 'rename', match: { name: 'github/create_issue' }, alias: 'gh_issue' },
        ],
      },
    },
  ]);
  openai = new OpenAI({
    baseURL: `${gw.url}/v1`,
    apiKey: 'sk-test-FAKE',
    maxRetries: 0,
    defaultHeaders: HEADERS,
  });
});
afterAll(() => gw?.close());

describe('Responses requests on their way to the provider', () => {
  it('hides, augments, replaces and renames flat tools, tool_choice and history', async () => {
    await openai.responses.create({
      model: 'gpt-4.1-mini',
      instructions: 'You file issues.',
      tools: TOOLS,
      tool_choice: { type: 'function', name: 'github/create_issue' },
      input: [
        { role: 'user', content: 'file an issue' },
        {
          type: 'function_call',
          call_id: 'call_0',
          name: 'github/create_issue',
          arguments: '{"q":"x"}',
        },
        { type: 'function_call_output', call_id: 'call_0', output: 'filed' },
        { role: 'user', content: 'thanks' },
      ],
    });
    const seen = lastSeen();
    expect(seen.tools).toEqual([
      fn('search_code', 'search_code tool\n\nOnly acme repos.'),
      fn('gh_issue', 'github/create_issue tool'),
      {
        type: 'function',
        strict: false,
        name: 'fetch',
        description: 'Vetted fetch',
        parameters: { type: 'object' },
      },
    ]);
    expect(seen.tool_choice).toEqual({ type: 'function', name: 'gh_issue' });
    expect((seen.input as Array<Record<string, unknown>>)[1]).toMatchObject({
      type: 'function_call',
      name: 'gh_issue',
    });
    expect(seen.instructions).toBe('You file issues.');
  });

  it('augments and replaces the same on a streamed request, and the calls stream back', async () => {
    const params = {
      model: 'gpt-4.1-mini',
      tools: TOOLS,
      input: [
        scripted({
          calls: [
            { name: 'search_code', arguments: { q: 'retry' } },
            { name: 'fetch', arguments: { q: 'https://acme.example' } },
          ],
        }),
      ],
    };
    await openai.responses.create(params);
    const unstreamed = lastSeen().tools;
    const final = await openai.responses.stream(params).finalResponse();
    const seen = lastSeen();
    expect(seen.stream).toBe(true);
    expect(seen.tools).toEqual(unstreamed);
    expect(seen.tools).toEqual(
      expect.arrayContaining([
        fn('search_code', 'search_code tool\n\nOnly acme repos.'),
        {
          type: 'function',
          strict: false,
          name: 'fetch',
          description: 'Vetted fetch',
          parameters: { type: 'object' },
        },
      ]),
    );
    expect(final.output.map((i) => [i.type, 'name' in i ? i.name : undefined])).toEqual([
      ['function_call', 'search_code'],
      ['function_call', 'fetch'],
    ]);
    const [receipt] = await lastReceipts(1);
    expect(receipt?.stream).toBe(true);
    expect(receipt?.wardwright_tool_mediation?.applied_rules.map((r) => r.id)).toEqual(
      expect.arrayContaining(['scope', 'vetted-fetch']),
    );
  });

  it('drops a tool_choice forcing a hidden tool, and every tool field when none is left', async () => {
    await openai.responses.create({
      model: 'gpt-4.1-mini',
      input: 'open a PR',
      tools: [fn('create_pull_request')],
      tool_choice: { type: 'function', name: 'create_pull_request' },
      parallel_tool_calls: true,
    });
    const seen = lastSeen();
    expect(seen).not.toHaveProperty('tools');
    expect(seen).not.toHaveProperty('tool_choice');
    expect(seen).not.toHaveProperty('parallel_tool_calls');
  });

  it('gives an illegal name a legal alias, and answers under the agent’s own name', async () => {
    const response = await openai.responses.create({
      model: 'gpt-4.1-mini',
      tools: [fn('jira/create ticket')],
      input: [scripted({ call: 'jira_create_ticket', arguments: { q: 'x' } })],
    });
    expect((lastSeen().tools as Array<{ name: string }>)[0]?.name).toBe('jira_create_ticket');
    expect(response.output[0]).toMatchObject({ type: 'function_call', name: 'jira/create ticket' });
  });
});

describe('Responses answers on their way to the agent', () => {
  const params = (script: object) => ({
    model: 'gpt-4.1-mini',
    tools: TOOLS,
    input: [scripted(script)],
  });
  const DELETE = { call: 'delete_repo', arguments: { q: 'toolgate-zq-secret' } };

  it('withholds a call to a hidden tool, and the receipt says so', async () => {
    const response = await openai.responses.create(params({ text: 'Sure.', ...DELETE }));
    expect(response.output.map((i) => i.type)).toEqual(['message']);
    expect(response.output_text).toBe('Sure.');
    const [receipt] = await lastReceipts(1);
    expect(receipt?.surface).toBe('openai-responses');
    expect(receipt?.response?.tool_calls).toEqual([
      expect.objectContaining({ name: 'delete_repo', policy_state: 'blocked', reason: 'hidden' }),
    ]);
  });

  it('never streams a byte of it, and the SDK accumulates a consistent response', async () => {
    const raw = await openai.responses
      .create({ ...params({ text: 'Sure.', ...DELETE }), stream: true })
      .asResponse();
    const text = await raw.text();
    expect(text).not.toContain('delete_repo');
    expect(text).not.toContain('toolgate-zq-secret');
    expect(raw.headers.get('x-toolgate-receipt-id')).toMatch(/^rcpt_/);

    const stream = openai.responses.stream(
      params({ calls: [{ name: 'delete_repo' }, { name: 'gh_issue', arguments: { q: 'bug' } }] }),
    );
    const events: string[] = [];
    for await (const event of stream) events.push(event.type);
    const final = await stream.finalResponse();
    expect(final.output.map((i) => [i.type, 'name' in i ? i.name : undefined])).toEqual([
      ['function_call', 'github/create_issue'],
    ]);
    expect(events.filter((t) => t === 'response.output_item.added')).toHaveLength(1);
  });

  it('runs the tool-call loop with the rename, and receipts the result by call_id', async () => {
    const first = await openai.responses.create(
      params({ call: 'gh_issue', arguments: { q: 'crash', token: 'tok-123456' } }),
    );
    const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ type: 'function_call', name: 'github/create_issue' });
    const output = { issue: 42, token: 'tok-abcdef' };
    const second = await openai.responses.create({
      model: 'gpt-4.1-mini',
      tools: TOOLS,
      input: [
        scripted({ call: 'gh_issue', arguments: { q: 'crash', token: 'tok-123456' } }),
        call,
        { type: 'function_call_output', call_id: call.call_id, output: JSON.stringify(output) },
      ],
    });
    expect(second.output.map((i) => i.type)).toEqual(['message']);
    expect((lastSeen().input as Array<Record<string, unknown>>)[1]).toMatchObject({
      name: 'gh_issue',
    });
    const [turn1, turn2] = await lastReceipts(2);
    const released = turn1?.response?.tool_calls[0];
    expect(released).toMatchObject({
      id: call.call_id,
      name: 'github/create_issue',
      provider_name: 'gh_issue',
      policy_state: 'allowed',
      arguments_hash: hashLenient({ q: 'crash', token: '[REDACTED]' }),
    });
    expect(turn2?.tool_results).toEqual([
      {
        tool_call_id: call.call_id,
        action_id: released?.action_id,
        result_hash: hashLenient({ issue: 42, token: '[REDACTED]' }),
        is_error: false,
        elapsed_ms: expect.any(Number),
        redacted_result: ['token'],
      },
    ]);
  });

  it('runs the tool-call loop streamed: renamed back, renamed for the provider, receipted', async () => {
    const script = scripted({ call: 'gh_issue', arguments: { q: 'hang', token: 'tok-654321' } });
    const first = await openai.responses
      .stream({ model: 'gpt-4.1-mini', tools: TOOLS, input: [script] })
      .finalResponse();
    const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ type: 'function_call', name: 'github/create_issue' });
    const output = { issue: 43, token: 'tok-fedcba' };
    const second = await openai.responses
      .stream({
        model: 'gpt-4.1-mini',
        tools: TOOLS,
        input: [
          script,
          {
            type: 'function_call',
            call_id: call.call_id,
            name: call.name,
            arguments: call.arguments,
          },
          { type: 'function_call_output', call_id: call.call_id, output: JSON.stringify(output) },
        ],
      })
      .finalResponse();
    expect(second.output.map((i) => i.type)).toEqual(['message']);
    expect((lastSeen().input as Array<Record<string, unknown>>)[1]).toMatchObject({
      type: 'function_call',
      name: 'gh_issue',
    });
    const [turn1, turn2] = await lastReceipts(2);
    expect([turn1?.stream, turn2?.stream]).toEqual([true, true]);
    const released = turn1?.response?.tool_calls[0];
    expect(released).toMatchObject({
      id: call.call_id,
      name: 'github/create_issue',
      provider_name: 'gh_issue',
      policy_state: 'allowed',
      arguments_hash: hashLenient({ q: 'hang', token: '[REDACTED]' }),
    });
    expect(turn2?.tool_results).toEqual([
      {
        tool_call_id: call.call_id,
        action_id: released?.action_id,
        result_hash: hashLenient({ issue: 43, token: '[REDACTED]' }),
        is_error: false,
        elapsed_ms: expect.any(Number),
        redacted_result: ['token'],
      },
    ]);
  });

  it('records results after previous_response_id without the call it cannot see', async () => {
    await openai.responses.create({
      model: 'gpt-4.1-mini',
      tools: TOOLS,
      previous_response_id: 'resp_stored_at_openai',
      input: [{ type: 'function_call_output', call_id: 'call_unseen', output: 'done' }],
    });
    const [receipt] = await lastReceipts(1);
    expect(receipt?.tool_results).toEqual([
      {
        tool_call_id: 'call_unseen',
        result_hash: hashLenient('done'),
        is_error: false,
        elapsed_ms: null,
      },
    ]);
    expect(lastSeen().previous_response_id).toBe('resp_stored_at_openai');
  });
});

describe('bad Responses input', () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      'tools[2].name',
      { input: 'x', tools: [fn('a'), fn('b'), { type: 'function' }] },
      'tools[2].name: is required',
    ],
    [
      'input[3].call_id',
      {
        input: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
          { role: 'user', content: 'c' },
          { type: 'function_call_output', output: 'x' },
        ],
      },
      'input[3].call_id: is required',
    ],
    ['tools[0].type', { input: 'x', tools: [{ type: 'teleport' }] }, 'tools[0].type'],
    ['prompt', { input: 'x', prompt: { id: 'pmpt_1' } }, 'prompt: stored prompts'],
    ['background', { input: 'x', background: true }, 'background: background responses'],
  ])('answers 400 naming %s, forwards nothing, writes no receipt', async (_field, body, says) => {
    const seq = gw.mock.requests.last(1)[0]?.seq ?? 0;
    const depth = gw.spool.stats().depth;
    const failing = openai.responses.create({ model: 'gpt-4.1-mini', ...body } as never);
    await expect(failing).rejects.toMatchObject({
      status: 400,
      error: { type: 'invalid_request_error', message: expect.stringContaining(says) },
    });
    expect(gw.mock.requests.last(1)[0]?.seq ?? 0).toBe(seq);
    expect(gw.spool.stats().depth).toBe(depth);
  });

  it('serves no stored response: retrieving one would hand the agent unjudged output', async () => {
    const seq = gw.mock.requests.last(1)[0]?.seq ?? 0;
    await expect(openai.responses.retrieve('resp_stored')).rejects.toMatchObject({ status: 404 });
    expect(gw.mock.requests.last(1)[0]?.seq ?? 0).toBe(seq);
  });
});
