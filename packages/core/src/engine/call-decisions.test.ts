import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../json/json-value.ts';
import type { ToolCallEvidence } from '../receipt/receipt-schema.ts';
import type { MediationRule } from '../resources/mediation-policy.ts';
import { enforceResponseBody } from '../response/enforce-response.ts';
import { createMemoryCallGate, type KnownApproval } from './call-gate.ts';
import type { RuleIdentity } from './identity-match.ts';
import { mediateRequest } from './mediate-request.ts';
import {
  anthropicRequest,
  anthropicTool,
  bundleOf,
  openAIRequest,
  openAITool,
} from './test-fixtures.ts';

/** Call-time rules judged through the whole engine: request mediation, then the response. */

const RULES = {
  prOnlyInApp: {
    id: 'pr-only-in-app-repo',
    action: 'deny',
    match: { name: 'create_pull_request' },
    when: "args.repo != 'acme/app'",
    message: 'Pull requests may only be opened in acme/app.',
  },
  externalMail: {
    id: 'external-mail-needs-approval',
    action: 'require_approval',
    match: { name: 'send_email' },
    when: "!args.to.endsWith('@acme.com')",
    approval: { ttl: '1h' },
  },
  searchBudget: {
    id: 'search-budget',
    action: 'rate_limit',
    match: { name: 'web_search' },
    limit: { calls: 10, per: '1m', by: 'identity' },
  },
} as const satisfies Record<string, unknown>;

const TOOLS = ['create_pull_request', 'send_email', 'web_search', 'read_file'];
const ALICE: RuleIdentity = { human: 'alice', trusted: ['human', 'service'], binding: 'verified' };

function openAIResponse(
  calls: Array<[string, JsonObject | string]>,
  content: string | null = null,
) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: 'gpt-4o-mini',
    choices: [
      {
        index: 0,
        finish_reason: 'tool_calls',
        message: {
          role: 'assistant',
          content,
          tool_calls: calls.map(([name, args], i) => ({
            id: `call_${i}`,
            type: 'function',
            function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
          })),
        },
      },
    ],
  };
}

function anthropicResponse(calls: Array<[string, JsonObject]>) {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    stop_reason: 'tool_use',
    content: [
      { type: 'text', text: 'Working on it.' },
      ...calls.map(([name, input], i) => ({ type: 'tool_use', id: `toolu_${i}`, name, input })),
    ],
  };
}

interface Setup {
  rules: ReadonlyArray<unknown>;
  identity?: RuleIdentity;
  approvals?: Map<string, KnownApproval>;
  now?: () => number;
}

function openAITurn(setup: Setup, calls: Array<[string, JsonObject | string]>) {
  const bundle = bundleOf({ rules: setup.rules as MediationRule[] });
  const gate = createMemoryCallGate({
    ...(setup.approvals ? { approvals: setup.approvals } : {}),
    ...(setup.now ? { now: setup.now } : {}),
  });
  const mediation = mediateRequest(bundle, {
    surface: 'openai-chat',
    body: openAIRequest(TOOLS.map((t) => openAITool(t))),
    identity: setup.identity ?? ALICE,
    gate,
  });
  const enforced = enforceResponseBody(openAIResponse(calls), mediation.response);
  const message = (
    enforced.body as { choices: Array<{ message: JsonObject; finish_reason: string }> }
  ).choices[0];
  return { gate, evidence: enforced.evidence.tool_calls, message, response: mediation.response };
}

describe('call-time rules: the table', () => {
  type Row = [string, Array<[string, JsonObject]>, Array<Partial<ToolCallEvidence>>];
  const rows: Row[] = [
    [
      'deny by argument: the app repo passes',
      [['create_pull_request', { repo: 'acme/app' }]],
      [{ policy_state: 'allowed', decision: { outcome: 'allow' } }],
    ],
    [
      'deny by argument: another repo is withheld with the rule message',
      [['create_pull_request', { repo: 'acme/infra' }]],
      [
        {
          policy_state: 'blocked',
          reason: 'rule:pr-only-in-app-repo',
          decision: {
            outcome: 'deny',
            rule: 'pr-only-in-app-repo',
            policy: 'policy-0',
            message: 'Pull requests may only be opened in acme/app.',
          },
        },
      ],
    ],
    [
      'approval: internal mail passes without one',
      [['send_email', { to: 'bob@acme.com' }]],
      [{ policy_state: 'allowed', decision: { outcome: 'allow' } }],
    ],
    [
      'approval: external mail is deferred, named after its action',
      [['send_email', { to: 'eve@evil.example' }]],
      [{ policy_state: 'deferred', reason: 'rule:external-mail-needs-approval' }],
    ],
    [
      'a tool no call-time rule covers carries no decision',
      [['read_file', { path: '/etc/hosts' }]],
      [{ policy_state: 'allowed', decision: undefined }],
    ],
    [
      'a condition that cannot be evaluated fails closed',
      [['create_pull_request', { owner: 'acme' }]],
      [{ policy_state: 'blocked', reason: 'rule_error:pr-only-in-app-repo' }],
    ],
  ];
  it.each(rows)('%s', (_title, calls, expected) => {
    const { evidence } = openAITurn({ rules: Object.values(RULES) }, calls);
    expect(evidence).toHaveLength(expected.length);
    for (const [i, want] of expected.entries()) {
      const { decision, ...rest } = want;
      expect(evidence[i]).toMatchObject(rest);
      if (decision !== undefined) expect(evidence[i]?.decision).toMatchObject(decision);
      else if ('decision' in want) expect(evidence[i]?.decision).toBeUndefined();
    }
  });

  it('an approval request carries the action id, redacted arguments and the rule', () => {
    const { gate, evidence } = openAITurn({ rules: [RULES.externalMail] }, [
      ['send_email', { to: 'eve@evil.example', api_key: 'k'.repeat(20) }],
    ]);
    const call = evidence[0] as ToolCallEvidence;
    expect(call.decision).toMatchObject({
      outcome: 'approval_required',
      approval: call.action_id,
    });
    expect(call.decision?.message).toContain(call.action_id);
    expect(call.decision?.message).toContain('make the same call again');
    expect(gate.requested).toEqual([
      {
        actionId: call.action_id,
        tool: 'send_email',
        arguments: { to: 'eve@evil.example', api_key: '[REDACTED]' },
        argumentsHash: call.arguments_hash,
        rule: { policy: 'policy-0', id: 'external-mail-needs-approval' },
        ttlMs: 3_600_000,
      },
    ]);
  });

  it('the same action approved passes as approved; denied is withheld as deny', () => {
    const first = openAITurn({ rules: [RULES.externalMail] }, [['send_email', { to: 'e@x.io' }]]);
    const actionId = first.evidence[0]?.action_id as string;
    const approved = openAITurn(
      { rules: [RULES.externalMail], approvals: new Map([[actionId, { state: 'approved' }]]) },
      [['send_email', { to: 'e@x.io' }]],
    );
    expect(approved.evidence[0]).toMatchObject({
      policy_state: 'allowed',
      decision: { outcome: 'approved', rule: 'external-mail-needs-approval' },
    });
    expect(approved.message?.finish_reason).toBe('tool_calls');
    // Other arguments are another action: the approval does not cover them.
    const other = openAITurn(
      { rules: [RULES.externalMail], approvals: new Map([[actionId, { state: 'approved' }]]) },
      [['send_email', { to: 'f@x.io' }]],
    );
    expect(other.evidence[0]?.policy_state).toBe('deferred');
    const denied = openAITurn(
      {
        rules: [RULES.externalMail],
        approvals: new Map([[actionId, { state: 'denied', decidedBy: 'olga', reason: 'no' }]]),
      },
      [['send_email', { to: 'e@x.io' }]],
    );
    expect(denied.evidence[0]).toMatchObject({
      policy_state: 'blocked',
      decision: { outcome: 'deny', approval: actionId },
    });
    expect(denied.evidence[0]?.decision?.message).toContain('denied by olga (no)');
    expect(denied.gate.requested).toEqual([]);
  });

  it('a deny wins over an approval, and a withheld call spends no rate-limit token', () => {
    const rules = [
      { ...RULES.searchBudget, limit: { calls: 1, per: '1m' } },
      { id: 'ask', action: 'require_approval', match: { name: 'web_search' } },
      { id: 'no-secrets', action: 'deny', match: { name: 'web_search' }, when: "args.q == 's'" },
    ];
    const t = 0;
    const setup = { rules, now: () => t };
    const { evidence } = openAITurn(setup, [
      ['web_search', { q: 's' }],
      ['web_search', { q: 'a' }],
    ]);
    expect(evidence.map((e) => e.decision?.outcome)).toEqual(['deny', 'approval_required']);
  });

  it('rate limits: the 11th call in a minute is withheld, the bucket refills', () => {
    let t = 0;
    const bundle = bundleOf({ rules: [RULES.searchBudget] });
    const gate = createMemoryCallGate({ now: () => t });
    const outcomes: string[] = [];
    for (let i = 0; i < 12; i++) {
      if (i === 11) t = 6_000; // one token back after 6 s (10 per minute)
      const mediation = mediateRequest(bundle, {
        surface: 'openai-chat',
        body: openAIRequest([openAITool('web_search')]),
        identity: ALICE,
        gate,
      });
      const enforced = enforceResponseBody(
        openAIResponse([['web_search', { q: `q${i}` }]]),
        mediation.response,
      );
      const call = enforced.evidence.tool_calls[0] as ToolCallEvidence;
      outcomes.push(call.decision?.outcome as string);
      if (i === 10)
        expect(call.decision?.message).toMatch(
          /allows 10 calls per 1m per identity\. Retry in 6s\./,
        );
    }
    expect(outcomes).toEqual([...Array(10).fill('allow'), 'rate_limited', 'allow']);
  });

  it('unproven callers share one bucket whatever name they claim', () => {
    const rules = [{ ...RULES.searchBudget, limit: { calls: 1, per: '1h' } }];
    const bundle = bundleOf({ rules: rules as unknown as MediationRule[] });
    const gate = createMemoryCallGate({ now: () => 0 });
    const outcome = (identity: RuleIdentity) => {
      const m = mediateRequest(bundle, {
        surface: 'openai-chat',
        body: openAIRequest([openAITool('web_search')]),
        identity,
        gate,
      });
      return enforceResponseBody(openAIResponse([['web_search', { q: 'x' }]]), m.response).evidence
        .tool_calls[0]?.decision?.outcome;
    };
    expect(outcome({ human: 'mallory-1' })).toBe('allow');
    expect(outcome({ human: 'mallory-2' })).toBe('rate_limited');
    expect(outcome(ALICE)).toBe('allow'); // a proven identity has its own bucket
  });
});

describe('what the agent sees', () => {
  it('OpenAI: the withheld call is gone, its explanation is the content, finish is stop', () => {
    const { message } = openAITurn({ rules: [RULES.prOnlyInApp] }, [
      ['create_pull_request', { repo: 'x/y' }],
    ]);
    expect(message?.finish_reason).toBe('stop');
    expect(message?.message.tool_calls).toBeUndefined();
    expect(message?.message.content).toBe('Pull requests may only be opened in acme/app.');
  });

  it('Anthropic: a text block stands where the call was; stop_reason end_turn', () => {
    const bundle = bundleOf({ rules: [RULES.prOnlyInApp] });
    const mediation = mediateRequest(bundle, {
      surface: 'anthropic-messages',
      body: anthropicRequest([anthropicTool('create_pull_request'), anthropicTool('read_file')]),
      identity: ALICE,
    });
    const enforced = enforceResponseBody(
      anthropicResponse([
        ['create_pull_request', { repo: 'x/y' }],
        ['read_file', { path: 'a' }],
      ]),
      mediation.response,
    );
    const body = enforced.body as JsonObject;
    expect(body.content).toEqual([
      { type: 'text', text: 'Working on it.' },
      { type: 'text', text: 'Pull requests may only be opened in acme/app.' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a' } },
    ]);
    expect(body.stop_reason).toBe('tool_use');
  });

  it('a meta-tool call is judged by its target and its target arguments', () => {
    const bundle = bundleOf({
      rules: [
        {
          id: 'no-prod-db',
          action: 'deny',
          match: { name: 'db/query' },
          when: "args.database == 'prod'",
        },
      ],
    });
    const mediation = mediateRequest(bundle, {
      surface: 'openai-chat',
      body: openAIRequest([openAITool('mcp_tool')]),
      identity: ALICE,
    });
    const call = (database: string) =>
      enforceResponseBody(
        openAIResponse([['mcp_tool', { server: 'DB', tool: 'Query', arguments: { database } }]]),
        mediation.response,
      ).evidence.tool_calls[0];
    expect(call('prod')).toMatchObject({ policy_state: 'blocked', reason: 'rule:no-prod-db' });
    expect(call('dev')?.policy_state).toBe('allowed');
  });
});

describe('observe-mode call-time rules', () => {
  const observing = (rules: ReadonlyArray<unknown>, enforced: ReadonlyArray<unknown> = []) =>
    bundleOf(
      { name: 'enforced', generation: 1, spec: { rules: enforced as MediationRule[] } },
      { name: 'trial', generation: 1, spec: { mode: 'observe', rules: rules as MediationRule[] } },
    );

  function turn(
    bundle: ReturnType<typeof bundleOf>,
    gate: ReturnType<typeof createMemoryCallGate>,
    calls: Array<[string, JsonObject]>,
  ) {
    const mediation = mediateRequest(bundle, {
      surface: 'openai-chat',
      body: openAIRequest(TOOLS.map((t) => openAITool(t))),
      identity: ALICE,
      gate,
    });
    return enforceResponseBody(openAIResponse(calls), mediation.response).evidence.tool_calls;
  }

  it('let the call through and record what they would have decided', () => {
    const gate = createMemoryCallGate();
    const evidence = turn(observing([RULES.prOnlyInApp, RULES.externalMail]), gate, [
      ['create_pull_request', { repo: 'evil/fork' }],
      ['create_pull_request', { repo: 'acme/app' }],
      ['send_email', { to: 'x@gmail.com' }],
    ]);
    expect(evidence.map((e) => e.policy_state)).toEqual(['allowed', 'allowed', 'allowed']);
    expect(evidence.map((e) => e.decision)).toEqual([
      {
        outcome: 'allow',
        observed: { outcome: 'deny', rule: 'pr-only-in-app-repo', policy: 'trial' },
      },
      { outcome: 'allow' },
      {
        outcome: 'allow',
        observed: {
          outcome: 'approval_required',
          rule: 'external-mail-needs-approval',
          policy: 'trial',
        },
      },
    ]);
    // Observing asks no human.
    expect(gate.requested).toEqual([]);
  });

  it('count their rate limits apart from the enforced ones', () => {
    const gate = createMemoryCallGate({ now: () => 0 });
    const bundle = observing(
      [{ ...RULES.searchBudget, id: 'trial-budget', limit: { calls: 1, per: '1m' } }],
      [{ ...RULES.searchBudget, limit: { calls: 2, per: '1m' } }],
    );
    const outcomes = [1, 2, 3].map(() => {
      const [call] = turn(bundle, gate, [['web_search', { q: 'a' }]]);
      return [call?.decision?.outcome, call?.decision?.observed?.outcome];
    });
    // The observed limit (1/min) would have withheld the 2nd call; the enforced one (2/min),
    // which observing did not spend, withholds the 3rd.
    expect(outcomes).toEqual([
      ['allow', undefined],
      ['allow', 'rate_limited'],
      ['rate_limited', 'rate_limited'],
    ]);
  });

  it('note nothing when an approval they would need was given', () => {
    const gate = createMemoryCallGate();
    const bundle = observing([RULES.externalMail]);
    const [first] = turn(bundle, gate, [['send_email', { to: 'x@gmail.com' }]]);
    const actionId = first?.action_id as string;
    const approved = createMemoryCallGate({
      approvals: new Map([[actionId, { state: 'approved' as const }]]),
    });
    const [again] = turn(bundle, approved, [['send_email', { to: 'x@gmail.com' }]]);
    expect(again?.decision).toEqual({ outcome: 'allow' });
  });
});
