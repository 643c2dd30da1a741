import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { approvalState } from '@toolgate/core';
import { until } from '@toolgate/core/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import { policyObject, registerGateway, storedReceipt } from '../faults/control-plane.ts';
import { type GatewayProcess, startGateway } from '../faults/processes.ts';
import {
  anthropicSse,
  type CraftedUpstream,
  openAISse,
  startCraftedUpstream,
} from '../testing/crafted-upstream.ts';

/**
 * Call-time rules against the real stack: the API, a gateway process syncing policy and
 * approvals from it, a scripted provider, and the official SDKs as the agent. Deny, approval
 * (pending → approved in the API → the retry passes; denied; expired), and a rate limit.
 */

const GATEWAY = 'calls-gw';
const LABELS = { env: 'call-time' };
const RULES = [
  {
    id: 'pr-only-in-app-repo',
    action: 'deny',
    match: { name: 'create_pull_request' },
    when: "args.repo != 'acme/app'",
    message: 'Pull requests may only be opened in acme/app.',
  },
  {
    id: 'external-mail-needs-approval',
    action: 'require_approval',
    match: { name: 'send_email' },
    when: "!args.to.endsWith('@acme.com')",
    approval: { ttl: '1h' },
  },
  {
    id: 'wires-need-approval',
    action: 'require_approval',
    match: { name: 'wire_money' },
    approval: { ttl: '2s' },
  },
  {
    id: 'search-budget',
    action: 'rate_limit',
    match: { name: 'web_search' },
    limit: { calls: 10, per: '1m', by: 'identity' },
  },
];
const TOOL_NAMES = ['create_pull_request', 'send_email', 'wire_money', 'web_search'];

let api: TestApi;
let upstream: CraftedUpstream;
let gateway: GatewayProcess;
let dataDir: string;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  api = await startTestApi();
  const gatewayToken = await registerGateway(api, GATEWAY, LABELS);
  await api.operator.call('mediationPolicies.create', {
    body: policyObject('call-time', LABELS, RULES),
  });
  const alice = await api.identity('alice', ['agent'], 'human');
  upstream = await startCraftedUpstream();
  dataDir = await mkdtemp(join(tmpdir(), 'toolgate-calls-'));
  gateway = await startGateway({
    name: GATEWAY,
    apiUrl: api.url,
    apiToken: gatewayToken,
    upstreamUrl: upstream.url,
    dataDir,
  });
  openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: alice.token, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gateway.url, apiKey: alice.token, maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await gateway?.kill();
  await upstream?.close();
  await api?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const openAITools = TOOL_NAMES.map((name) => ({
  type: 'function' as const,
  function: { name, parameters: { type: 'object', properties: {} } },
}));
const anthropicTools = TOOL_NAMES.map((name) => ({
  name,
  input_schema: { type: 'object' as const, properties: {} },
}));

/** One OpenAI turn whose answer is a call of `name` with `args`. */
async function openAITurn(name: string, args: object, stream = false) {
  const call = {
    id: 'call_1',
    type: 'function',
    function: { name, arguments: JSON.stringify(args) },
  };
  if (!stream) {
    upstream.answer({
      json: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4o-mini',
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: { role: 'assistant', content: null, tool_calls: [call] },
          },
        ],
      },
    });
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'go' }],
      tools: openAITools,
    });
    const choice = completion.choices[0];
    return { message: choice?.message, finish: choice?.finish_reason };
  }
  const chunk = (delta: object, finish: string | null = null) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  upstream.answer({
    sse: openAISse([
      chunk({ role: 'assistant', content: '' }),
      chunk({ tool_calls: [{ index: 0, ...call }] }),
      chunk({}, 'tool_calls'),
    ]),
  });
  const runner = openai.chat.completions.stream({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'go' }],
    tools: openAITools,
  });
  const completion = await runner.finalChatCompletion();
  const choice = completion.choices[0];
  return { message: choice?.message, finish: choice?.finish_reason };
}

/** One Anthropic turn whose answer is a call of `name` with `input`. */
async function anthropicTurn(name: string, input: object, stream = false) {
  const message = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
  const block = { type: 'tool_use', id: 'toolu_1', name, input };
  const request = {
    model: 'claude-sonnet-4-5',
    max_tokens: 64,
    messages: [{ role: 'user' as const, content: 'go' }],
    tools: anthropicTools,
  };
  if (!stream) {
    upstream.answer({ json: { ...message, content: [block] } });
    return anthropic.messages.create(request);
  }
  upstream.answer({
    sse: anthropicSse([
      { type: 'message_start', message: { ...message, content: [], stop_reason: null } },
      { type: 'content_block_start', index: 0, content_block: { ...block, input: {} } },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) },
      },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 1 } },
      { type: 'message_stop' },
    ]),
  });
  return anthropic.messages.stream(request).finalMessage();
}

/** The function name of the message's first tool call. */
function calledName(message: OpenAI.Chat.Completions.ChatCompletionMessage | undefined) {
  const call = message?.tool_calls?.[0];
  return call?.type === 'function' ? call.function.name : undefined;
}

const approvalId = (text: string | null | undefined) => /act_[0-9a-f]{32}/.exec(text ?? '')?.[0];

async function approval(name: string) {
  return api.operator.call('toolCallApprovals.get', { params: { name } });
}

describe('deny', () => {
  it('OpenAI: withholds a pull request outside acme/app and says why; allows acme/app', async () => {
    for (const stream of [false, true]) {
      const denied = await openAITurn('create_pull_request', { repo: 'acme/infra' }, stream);
      expect(denied.message?.tool_calls ?? []).toEqual([]);
      expect(denied.message?.content).toBe('Pull requests may only be opened in acme/app.');
      expect(denied.finish).toBe('stop');
      const allowed = await openAITurn('create_pull_request', { repo: 'acme/app' }, stream);
      expect(calledName(allowed.message)).toBe('create_pull_request');
      expect(allowed.finish).toBe('tool_calls');
    }
  });

  it('Anthropic: a text block stands where the call was; stop_reason end_turn', async () => {
    for (const stream of [false, true]) {
      const message = await anthropicTurn('create_pull_request', { repo: 'x/y' }, stream);
      expect(
        message.content.map((b) => ({ type: b.type, text: 'text' in b ? b.text : '' })),
      ).toEqual([{ type: 'text', text: 'Pull requests may only be opened in acme/app.' }]);
      expect(message.stop_reason).toBe('end_turn');
    }
  });
});

describe('require_approval', () => {
  it('pending → approved in the API → the same call passes on retry; other arguments do not', async () => {
    const args = { to: 'eve@example.org', subject: 'hi' };
    const first = await openAITurn('send_email', args, true);
    expect(first.message?.tool_calls ?? []).toEqual([]);
    const name = approvalId(first.message?.content) as string;
    expect(first.message?.content).toContain('make the same call again');
    await until(async () => (await approval(name).catch(() => undefined)) !== undefined);
    const pending = await approval(name);
    expect(approvalState(pending, Date.now())).toBe('pending');
    expect(pending.spec).toMatchObject({
      tool: 'send_email',
      arguments: args,
      identity: { human: 'alice', binding: 'verified' },
      gateway: GATEWAY,
      rule: { policy: 'call-time', id: 'external-mail-needs-approval' },
    });
    await api.operator.call('toolCallApprovals.decide', {
      params: { name },
      body: { decision: 'Approve', reason: 'expected mail' },
    });
    await until(async () => {
      const retry = await openAITurn('send_email', args);
      return calledName(retry.message) === 'send_email';
    });
    const other = await openAITurn('send_email', { ...args, to: 'mallory@example.org' });
    expect(other.message?.tool_calls ?? []).toEqual([]);
    // The receipt of the retry that passed says it was approved, by which approval.
    const allowed = await openAITurn('send_email', args);
    expect(allowed.finish).toBe('tool_calls');
  });

  it('denied: the retry is withheld and the agent is told it was denied', async () => {
    const input = { to: 'boss@rival.example', subject: 'offer' };
    const first = await anthropicTurn('send_email', input);
    const text = first.content.find((b) => b.type === 'text');
    const name = approvalId(text?.type === 'text' ? text.text : '') as string;
    expect(name).toBeDefined();
    await until(async () => (await approval(name).catch(() => undefined)) !== undefined);
    await api.operator.call('toolCallApprovals.decide', {
      params: { name },
      body: { decision: 'Deny', reason: 'not to competitors' },
    });
    await until(async () => {
      const retry = await anthropicTurn('send_email', input, true);
      const block = retry.content.find((b) => b.type === 'text');
      return block?.type === 'text' && block.text.includes('was denied');
    });
  });

  it('expired: an approval past its ttl no longer lets the call through, and is asked again', async () => {
    const args = { amount: 100, to: 'acct-1' };
    const first = await openAITurn('wire_money', args);
    const name = approvalId(first.message?.content) as string;
    await until(async () => (await approval(name).catch(() => undefined)) !== undefined);
    await api.operator.call('toolCallApprovals.decide', {
      params: { name },
      body: { decision: 'Approve' },
    });
    await until(async () => (await openAITurn('wire_money', args)).finish === 'tool_calls');
    await until(async () => approvalState(await approval(name), Date.now()) === 'expired');
    await until(async () => (await openAITurn('wire_money', args)).finish === 'stop');
    // The retry re-opened the approval: pending again, for an operator to decide anew.
    await until(async () => approvalState(await approval(name), Date.now()) === 'pending');
  });
});

describe('rate_limit', () => {
  it('the 11th web search in a minute is withheld with when to retry; counted per rule', async () => {
    const outcomes: string[] = [];
    let last = '';
    for (let i = 0; i < 11; i++) {
      const turn = await openAITurn('web_search', { q: `q${i}` }, i % 2 === 1);
      outcomes.push(turn.finish ?? '');
      last = turn.message?.content ?? '';
    }
    expect(outcomes).toEqual([...Array(10).fill('tool_calls'), 'stop']);
    expect(last).toMatch(
      /rate limit "search-budget" allows 10 calls per 1m per identity\. Retry in \d+s\./,
    );
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toContain(
      'toolgate_gateway_withheld_tool_calls_total{outcome="rate_limited",rule="search-budget"} 1',
    );
  });
});

describe('receipts', () => {
  it('record each decision with its rule, policy and message', async () => {
    upstream.answer({
      json: {
        id: 'chatcmpl-2',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4o-mini',
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'call_9',
                  type: 'function',
                  function: { name: 'create_pull_request', arguments: '{"repo":"z/z"}' },
                },
              ],
            },
          },
        ],
      },
    });
    const answer = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${openai.apiKey}` },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'go' }],
        tools: openAITools,
      }),
    });
    const receiptId = answer.headers.get('x-toolgate-receipt-id') as string;
    await answer.text();
    expect(receiptId).toBeTruthy();
    await until(
      async () => (await storedReceipt(api, receiptId).catch(() => undefined)) !== undefined,
    );
    const receipt = await storedReceipt(api, receiptId);
    expect(receipt.response?.tool_calls[0]).toMatchObject({
      policy_state: 'blocked',
      reason: 'rule:pr-only-in-app-repo',
      decision: {
        outcome: 'deny',
        rule: 'pr-only-in-app-repo',
        policy: 'call-time',
        message: 'Pull requests may only be opened in acme/app.',
      },
    });
  });
});
