import type { Receipt, ToolCallApproval, ToolCallApprovalSpec } from '@toolgate/core';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalBook } from '../calls/approval-book.ts';
import { CallGates } from '../calls/call-gates.ts';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * Call-time rules on the OpenAI Responses API, through a real gateway in front of the mock
 * provider with the official `openai` SDK, streamed and not: `deny` (with a `when:` on the
 * arguments), `require_approval` (withheld and asked for; released once approved) and
 * `rate_limit`, each withheld call explained to the agent in a message of its own.
 */

let gw: TestGateway;
let openai: OpenAI;
const book = new ApprovalBook();
const asked: ToolCallApprovalSpec[] = [];

const fn = (name: string): OpenAI.Responses.FunctionTool => ({
  type: 'function',
  name,
  parameters: { type: 'object', properties: {} },
  strict: false,
});
const TOOLS = ['create_pull_request', 'send_email', 'web_lookup', 'docs_lookup'].map(fn);

beforeAll(async () => {
  gw = await startTestGateway({
    calls: new CallGates({ gateway: 'test-gw', book, requests: { submit: (s) => asked.push(s) } }),
  });
  await gw.applyPolicies([
    {
      name: 'call-time',
      spec: {
        rules: [
          {
            id: 'pr-only-in-app-repo',
            action: 'deny',
            match: { name: 'create_pull_request' },
            when: "args.repo != 'acme/app'",
            message: 'Pull requests may only be opened in acme/app.',
          },
          {
            id: 'mail-needs-approval',
            action: 'require_approval',
            match: { name: 'send_email' },
            approval: { ttl: '1h' },
          },
          {
            id: 'lookup-budget',
            action: 'rate_limit',
            match: { name: 'web_lookup' },
            limit: { calls: 1, per: '1h', by: 'identity' },
          },
          {
            id: 'docs-budget',
            action: 'rate_limit',
            match: { name: 'docs_lookup' },
            limit: { calls: 2, per: '1h', by: 'identity' },
          },
        ],
      },
    },
  ]);
  openai = new OpenAI({
    baseURL: `${gw.url}/v1`,
    apiKey: 'sk-test-FAKE',
    maxRetries: 0,
    defaultHeaders: { 'x-user-id': 'alice' },
  });
});
afterAll(() => gw?.close());

/** One turn whose answer (scripted for the mock) is a call of `name` with `args`. */
async function turn(name: string, args: object, stream: boolean) {
  const params = {
    model: 'gpt-4.1-mini',
    tools: TOOLS,
    input: [
      {
        role: 'user' as const,
        content: `mock: ${JSON.stringify({ call: name, arguments: args })}`,
      },
    ],
  };
  const response = stream
    ? await openai.responses.stream(params).finalResponse()
    : await openai.responses.create(params);
  const receipt = (await servedReceipts(gw.spool)).at(-1) as Receipt;
  return { response, decision: receipt.response?.tool_calls[0] };
}

function approved(spec: ToolCallApprovalSpec): ToolCallApproval {
  return {
    apiVersion: 'toolgate.dev/v1',
    kind: 'ToolCallApproval',
    metadata: {
      name: spec.actionId,
      uid: 'u',
      labels: {},
      annotations: {},
      generation: 1,
      resourceVersion: '1',
      creationTimestamp: new Date().toISOString(),
    },
    spec,
    status: {
      conditions: [
        {
          type: 'Approved',
          status: 'True',
          reason: 'ApprovedByOperator',
          message: 'ok',
          lastTransitionTime: new Date().toISOString(),
        },
      ],
      decidedBy: 'olga',
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    },
  };
}

describe.each([false, true])('Responses call-time rules (stream: %s)', (stream) => {
  it('denies a call its when: matches, tells the agent why, and lets the others through', async () => {
    const denied = await turn('create_pull_request', { repo: `acme/infra-${stream}` }, stream);
    expect(denied.response.output.map((i) => i.type)).toEqual(['message']);
    expect(denied.response.output_text).toBe('Pull requests may only be opened in acme/app.');
    expect(denied.decision).toMatchObject({
      policy_state: 'blocked',
      decision: { outcome: 'deny', rule: 'pr-only-in-app-repo' },
    });
    const allowed = await turn('create_pull_request', { repo: 'acme/app' }, stream);
    expect(allowed.response.output[0]).toMatchObject({
      type: 'function_call',
      name: 'create_pull_request',
    });
    expect(allowed.decision?.policy_state).toBe('allowed');
  });

  it('withholds a call needing approval and asks for it, then releases it once approved', async () => {
    const args = { to: `bob-${stream}@rival.example` };
    const pending = await turn('send_email', args, stream);
    expect(pending.response.output.map((i) => i.type)).toEqual(['message']);
    expect(pending.decision).toMatchObject({
      policy_state: 'deferred',
      decision: { outcome: 'approval_required', approval: pending.decision?.action_id },
    });
    const request = asked.find((s) => s.actionId === pending.decision?.action_id);
    expect(request).toMatchObject({ tool: 'send_email', surface: 'openai-responses' });
    book.put(approved(request as ToolCallApprovalSpec));
    const retried = await turn('send_email', args, stream);
    expect(retried.response.output[0]).toMatchObject({ type: 'function_call', name: 'send_email' });
    expect(retried.decision?.decision?.outcome).toBe('approved');
  });
});

describe('Responses rate limits', () => {
  it('lets the first call through and withholds the next within the window', async () => {
    const first = await turn('web_lookup', { q: 'a' }, false);
    expect(first.decision?.policy_state).toBe('allowed');
    const second = await turn('web_lookup', { q: 'b' }, true);
    expect(second.response.output.map((i) => i.type)).toEqual(['message']);
    expect(second.decision?.decision).toMatchObject({
      outcome: 'rate_limited',
      rule: 'lookup-budget',
    });
  });
});

describe('Responses rate limits, streamed and not', () => {
  it('lets calls through in both modes until the budget is spent, then withholds them in both', async () => {
    const outcomes: Array<[boolean, string | undefined, string]> = [];
    for (const [i, stream] of [false, true, false, true].entries()) {
      const { response, decision } = await turn('docs_lookup', { q: `q${i}` }, stream);
      outcomes.push([stream, decision?.decision?.outcome, response.output[0]?.type ?? '']);
      if (decision?.policy_state === 'blocked') {
        expect(response.output_text).toMatch(
          /rate limit "docs-budget" allows 2 calls per 1h per identity\. Retry in/,
        );
      }
    }
    expect(outcomes).toEqual([
      [false, 'allow', 'function_call'],
      [true, 'allow', 'function_call'],
      [false, 'rate_limited', 'message'],
      [true, 'rate_limited', 'message'],
    ]);
  });
});
