import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GenerateContentResponse, GoogleGenAI } from '@google/genai';
import { approvalState } from '@toolgate/core';
import { until } from '@toolgate/core/testing';
import { createMockProvider, type MockProvider } from '@toolgate/mock-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import { policyObject, registerGateway, storedReceipt } from '../faults/control-plane.ts';
import { type GatewayProcess, startGateway } from '../faults/processes.ts';
import {
  geminiAgent,
  geminiTools,
  GEMINI_TEST_MODEL as MODEL,
  receiptIdOf,
  say,
} from '../testing/gemini-agent.ts';

/**
 * Call-time rules on the Gemini surface against the real stack: the API, a gateway process
 * syncing policy and approvals from it, the mock provider, and the official `@google/genai`
 * client as the agent, proving its identity with its Toolgate token in the SDK's key slot
 * (`x-goog-api-key`, never passed upstream). Deny with a `when` on the arguments, approval
 * (pending → approved in the API → the same call passes on retry), and a rate limit; the
 * withheld call's place holds the rule's explanation as a text part.
 */

const GATEWAY = 'gemini-calls-gw';
const LABELS = { env: 'gemini-call-time' };
const RULES = [
  {
    id: 'pr-only-in-app-repo',
    action: 'deny',
    match: { name: 'create_pull_request', provider: 'gemini' },
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
    id: 'lookup-budget',
    action: 'rate_limit',
    match: { name: 'lookup' },
    limit: { calls: 3, per: '1m', by: 'identity' },
  },
];
const TOOLS = geminiTools(['create_pull_request', 'send_email', 'lookup']);

let api: TestApi;
let mock: MockProvider;
let gateway: GatewayProcess;
let dataDir: string;
let agent: GoogleGenAI;

beforeAll(async () => {
  api = await startTestApi();
  const gatewayToken = await registerGateway(api, GATEWAY, LABELS);
  await api.operator.call('mediationPolicies.create', {
    body: policyObject('gemini-call-time', LABELS, RULES),
  });
  const alice = await api.identity('alice', ['agent'], 'human');
  mock = await createMockProvider();
  dataDir = await mkdtemp(join(tmpdir(), 'toolgate-gemini-calls-'));
  gateway = await startGateway({
    name: GATEWAY,
    apiUrl: api.url,
    apiToken: gatewayToken,
    upstreamUrl: mock.url,
    dataDir,
  });
  agent = geminiAgent(gateway.url, { apiKey: alice.token });
}, 60_000);

afterAll(async () => {
  await gateway?.kill();
  await mock?.close();
  await api?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** One turn whose answer is a call of `name` with `args`: what the agent got, and the receipt. */
async function turn(name: string, args: object, stream = false) {
  const request = {
    model: MODEL,
    contents: say({ call: name, arguments: args }),
    config: { tools: TOOLS },
  };
  let responses: GenerateContentResponse[];
  if (stream) {
    responses = [];
    for await (const chunk of await agent.models.generateContentStream(request)) {
      responses.push(chunk);
    }
  } else responses = [await agent.models.generateContent(request)];
  return {
    calls: responses.flatMap((r) => r.functionCalls ?? []),
    text: responses.map((r) => r.text ?? '').join(''),
    receiptId: receiptIdOf(responses[0] as GenerateContentResponse),
  };
}

const approvalId = (text: string) => /act_[0-9a-f]{32}/.exec(text)?.[0];
const approval = (name: string) => api.operator.call('toolCallApprovals.get', { params: { name } });

describe('Gemini call-time rules', () => {
  it('deny: withholds the call outside acme/app and says why in its place; allows acme/app', async () => {
    for (const stream of [false, true]) {
      const denied = await turn('create_pull_request', { repo: 'acme/infra' }, stream);
      expect(denied.calls).toEqual([]);
      expect(denied.text).toBe('Pull requests may only be opened in acme/app.');
      const allowed = await turn('create_pull_request', { repo: 'acme/app' }, stream);
      expect(allowed.calls).toEqual([{ name: 'create_pull_request', args: { repo: 'acme/app' } }]);
    }
  });

  it('require_approval: pending → approved in the API → the same call passes on retry', async () => {
    const args = { to: 'eve@example.org', subject: 'hi' };
    const first = await turn('send_email', args, true);
    expect(first.calls).toEqual([]);
    expect(first.text).toContain('make the same call again');
    const name = approvalId(first.text) as string;
    await until(async () => (await approval(name).catch(() => undefined)) !== undefined);
    const pending = await approval(name);
    expect(approvalState(pending, Date.now())).toBe('pending');
    expect(pending.spec).toMatchObject({
      tool: 'send_email',
      arguments: args,
      identity: { human: 'alice', binding: 'verified' },
      gateway: GATEWAY,
      surface: 'gemini',
      rule: { policy: 'gemini-call-time', id: 'external-mail-needs-approval' },
    });
    await api.operator.call('toolCallApprovals.decide', {
      params: { name },
      body: { decision: 'Approve', reason: 'expected mail' },
    });
    await until(async () => (await turn('send_email', args)).calls.length === 1);
    // Released streamed too: the approval is of the action, whatever the transport.
    expect((await turn('send_email', args, true)).calls).toEqual([{ name: 'send_email', args }]);
    // Other arguments are another action: withheld again.
    expect((await turn('send_email', { ...args, to: 'mallory@example.org' })).calls).toEqual([]);
    // Mail inside the company needs no approval at all (the rule's `when`).
    expect((await turn('send_email', { to: 'bob@acme.com' })).calls).toHaveLength(1);
  });

  it('require_approval, the other way round: withheld JSON, released streamed', async () => {
    const args = { to: 'trent@example.org', subject: 'hello' };
    const first = await turn('send_email', args);
    expect(first.calls).toEqual([]);
    expect(first.text).toContain('make the same call again');
    const name = approvalId(first.text) as string;
    await until(async () => (await approval(name).catch(() => undefined)) !== undefined);
    expect((await approval(name)).spec).toMatchObject({ tool: 'send_email', arguments: args });
    await api.operator.call('toolCallApprovals.decide', {
      params: { name },
      body: { decision: 'Approve', reason: 'expected mail' },
    });
    await until(async () => (await turn('send_email', args, true)).calls.length === 1);
    expect((await turn('send_email', args, true)).calls).toEqual([{ name: 'send_email', args }]);
  });

  it('rate_limit: lookups past 3 in a minute are withheld, streamed or not, with when to retry', async () => {
    const outcomes: number[] = [];
    const withheld: string[] = [];
    for (let i = 0; i < 5; i++) {
      const result = await turn('lookup', { q: `q${i}` }, i % 2 === 1);
      outcomes.push(result.calls.length);
      if (result.calls.length === 0) withheld.push(result.text);
    }
    // Allowed JSON and streamed, then withheld streamed (4th) and JSON (5th).
    expect(outcomes).toEqual([1, 1, 1, 0, 0]);
    expect(withheld).toHaveLength(2);
    for (const text of withheld) {
      expect(text).toMatch(
        /rate limit "lookup-budget" allows 3 calls per 1m per identity\. Retry in/,
      );
    }
  });

  it('receipts record each decision, and the identity the token proved', async () => {
    const denied = await turn('create_pull_request', { repo: 'x/y' });
    await until(
      async () =>
        (await storedReceipt(api, denied.receiptId as string).catch(() => undefined)) !== undefined,
    );
    const stored = await storedReceipt(api, denied.receiptId as string);
    expect(stored.surface).toBe('gemini');
    expect(stored.identity).toMatchObject({ human: 'alice', binding: 'verified' });
    expect(stored.response?.tool_calls[0]).toMatchObject({
      name: 'create_pull_request',
      policy_state: 'blocked',
      reason: 'rule:pr-only-in-app-repo',
      decision: {
        outcome: 'deny',
        rule: 'pr-only-in-app-repo',
        policy: 'gemini-call-time',
        message: 'Pull requests may only be opened in acme/app.',
      },
    });
    // The agent's Toolgate token proved who it is and went no further.
    for (const request of mock.requests.last()) {
      expect(request.headers['x-goog-api-key']).toBeUndefined();
    }
  });
});
