import { createClient } from '@toolgate/contract';
import { API_VERSION } from '@toolgate/core';
import { Client } from 'undici';
import { median } from '../measure.ts';
import { CHAT_PATH, interleavedLatency, percentile } from './load.ts';
import { type LatencyResult, type Measured, measureLatency } from './phases.ts';
import type { ToolgateStack } from './toolgate-stack.ts';

/**
 * Call-time rules in `pnpm bench gateway`:
 *
 * - **CEL cost**: two more gateways on the same API, one whose bundle has ten call-time rules
 *   with `when:` conditions reading the call's arguments, one with the same ten rules without
 *   `when`. Rate limits with limits no run reaches, so both let every call through and the
 *   difference is the conditions alone. Every answer carries three tool calls the rules match.
 *   Target: the conditions add ≤ 10% to the gateway's added p50.
 * - **Approval propagation**: a call withheld for approval, approved through the API; the time
 *   from the operator's approve to the first retry that passes (retrying every 5 ms). Target:
 *   p99 < 1 s.
 */

export const TARGET_CEL_SHARE = 0.1;
export const TARGET_APPROVAL_P99_MS = 1000;
const APPROVALS = 40;

const TOOLS = Array.from({ length: 10 }, (_, i) => `ct_tool_${i}`);
const CONDITIONS = [
  "args.repo.startsWith('acme/')",
  "args.repo != 'acme/secret' && size(args.title) < 200",
  'args.count < 1000',
  "args.labels.exists(l, l == 'bug')",
  "!args.title.contains('DROP TABLE')",
  "args.repo.matches('^acme/[a-z-]+$')",
  'history.tools.size() >= 0 && args.count >= 0',
  "identity.binding != 'rejected' && args.repo != ''",
  "request.model.startsWith('gpt') && args.count != 13",
  "'bug' in args.labels",
];

function callTimeRules(withWhen: boolean) {
  return CONDITIONS.map((when, i) => ({
    id: `budget-${i}`,
    action: 'rate_limit',
    match: { name: `ct_tool_${i % 3}` },
    limit: { calls: 1_000_000, per: '1s', by: 'gateway' },
    ...(withWhen ? { when } : {}),
  }));
}

const APPROVAL_RULE = {
  id: 'approve-wires',
  action: 'require_approval',
  match: { name: 'ct_wire' },
  approval: { ttl: '1h' },
};

const ARGS = { repo: 'acme/app', title: 'Fix retries', count: 3, labels: ['bug', 'infra'] };

/** The request every call-time target gets: 10 tools; the mock answers with 3 matched calls. */
export function callTimeRequest(): string {
  const script = { calls: [0, 1, 2].map((i) => ({ name: `ct_tool_${i}`, arguments: ARGS })) };
  return JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: `mock: ${JSON.stringify(script)}` }],
    tools: [...TOOLS, 'ct_wire'].map((name) => ({
      type: 'function',
      function: { name, parameters: { type: 'object', properties: {} } },
    })),
  });
}

/**
 * Registers a gateway whose bundle holds `rules`; returns its name and token. Each gateway
 * process needs its own: two processes shipping under one name fork its receipt chain (the API
 * refuses the second's receipts as `ChainBroken`, and that gateway quarantines them).
 */
export async function provision(stack: ToolgateStack, name: string, rules: unknown[]) {
  const operator = createClient({ baseUrl: stack.apiUrl, token: stack.operatorToken });
  const labels = { bench: name };
  await operator.call('identities.create', {
    body: {
      apiVersion: API_VERSION,
      kind: 'Identity',
      metadata: { name },
      spec: { type: 'service', roles: ['gateway'] },
    },
  });
  await operator.call('gateways.create', {
    body: {
      apiVersion: API_VERSION,
      kind: 'Gateway',
      metadata: { name, labels },
      spec: { identity: name },
    },
  });
  await operator.call('mediationPolicies.create', {
    body: {
      apiVersion: API_VERSION,
      kind: 'MediationPolicy',
      metadata: { name },
      spec: { selector: { matchLabels: labels }, rules: rules as never },
    },
  });
  const { token } = await operator.call('tokens.issueToken', {
    params: { name },
    body: { description: 'pnpm bench gateway (call-time rules)' },
  });
  return { name, token };
}

export interface CallTimeTargets {
  withWhen: Measured;
  withoutWhen: Measured;
}

/** Starts the two call-time gateways (same API as `stack`). */
export async function startCallTimeGateways(
  stack: ToolgateStack,
  headers: Record<string, string>,
  progress: (line: string) => void,
): Promise<CallTimeTargets> {
  progress('starting two more gateways: 10 call-time rules with `when`, and the same without');
  const started: Measured[] = [];
  for (const [name, withWhen] of [
    ['bench-calls-when', true],
    ['bench-calls-plain', false],
  ] as const) {
    const rules = [...callTimeRules(withWhen), APPROVAL_RULE];
    const { token } = await provision(stack, name, rules);
    const gateway = await stack.variant(name, { GATEWAY_NAME: name, API_TOKEN: token });
    started.push({
      name: withWhen ? 'tg 10 CEL rules' : 'tg same, no when',
      origin: gateway.url,
      headers,
      pgids: [gateway.gateway.pid],
    });
  }
  return { withWhen: started[0] as Measured, withoutWhen: started[1] as Measured };
}

/**
 * Concurrency-1 latency of direct and both call-time gateways (their own rounds), after the
 * same warm-up the main targets get: the conditions' code is cold in a fresh process, and only
 * the gateway with `when` runs it.
 */
export async function measureCallTimeLatency(
  direct: Measured,
  targets: CallTimeTargets,
  rounds: number,
  iterations: number,
  progress: (line: string) => void,
): Promise<Map<string, LatencyResult>> {
  const measured = [direct, targets.withWhen, targets.withoutWhen];
  const body = callTimeRequest();
  progress('call-time rules: warm-up, 200 requests per target');
  await interleavedLatency(measured, body, 200);
  return measureLatency(measured, body, rounds, iterations, (line) =>
    progress(`call-time rules: ${line}`),
  );
}

export interface PropagationResult {
  p50: number;
  p99: number;
  samples: number;
}

/**
 * Approve → next retry allowed, `APPROVALS` times, each a fresh action (its own arguments).
 * The clock starts when the operator's approve call is sent.
 */
export async function measureApprovalPropagation(
  stack: ToolgateStack,
  target: Measured,
  progress: (line: string) => void,
): Promise<PropagationResult> {
  const operator = createClient({ baseUrl: stack.apiUrl, token: stack.operatorToken });
  const client = new Client(target.origin, { keepAliveTimeout: 30_000 });
  const times: number[] = [];
  try {
    for (let i = 0; i < APPROVALS; i++) {
      if (i % 10 === 0) progress(`approval propagation: ${i}/${APPROVALS}`);
      const script = { calls: [{ name: 'ct_wire', arguments: { amount: i, run: Date.now() } }] };
      const body = JSON.stringify({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: `mock: ${JSON.stringify(script)}` }],
        tools: [
          { type: 'function', function: { name: 'ct_wire', parameters: { type: 'object' } } },
        ],
      });
      const first = await turn(client, target, body);
      const name = /act_[0-9a-f]{32}/.exec(first.content ?? '')?.[0];
      if (!name || first.called)
        throw new Error(`call was not withheld for approval: ${first.raw.slice(0, 300)}`);
      await waitFor(async () => {
        const found = await operator
          .call('toolCallApprovals.get', { params: { name } })
          .catch(() => undefined);
        return found !== undefined;
      }, 10_000);
      const started = performance.now();
      await operator.call('toolCallApprovals.decide', {
        params: { name },
        body: { decision: 'Approve', reason: 'bench' },
      });
      await waitFor(async () => (await turn(client, target, body)).called, 10_000, 5);
      times.push(performance.now() - started);
    }
  } finally {
    await client.close();
  }
  return { p50: median(times), p99: percentile(times, 0.99), samples: times.length };
}

async function turn(client: Client, target: Measured, body: string) {
  const answer = await client.request({
    path: CHAT_PATH,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers },
    body,
  });
  const raw = await answer.body.text();
  if (answer.statusCode !== 200)
    throw new Error(`${target.name}: HTTP ${answer.statusCode} ${raw.slice(0, 300)}`);
  const message = (
    JSON.parse(raw) as {
      choices: Array<{ message: { content: string | null; tool_calls?: unknown[] } }>;
    }
  ).choices[0]?.message;
  return { raw, content: message?.content ?? null, called: (message?.tool_calls?.length ?? 0) > 0 };
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, intervalMs = 20) {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The report lines and verdicts. */
export function callTimeReport(
  latency: Map<string, LatencyResult>,
  propagation: PropagationResult | undefined,
  label: (text: string) => string,
  ms: (value: number | undefined) => string,
  verdict: (ok: boolean) => string,
): string[] {
  const when = latency.get('tg 10 CEL rules');
  const plain = latency.get('tg same, no when');
  const share = when && plain ? (when.addedP50 - plain.addedP50) / plain.addedP50 : Number.NaN;
  const lines = [
    `${label(`10 CEL call-time rules add ≤ ${TARGET_CEL_SHARE * 100}% p50`)}added p50 ${ms(when?.addedP50)} with when vs ${ms(plain?.addedP50)} without → ${(share * 100).toFixed(1)}% ${verdict(share <= TARGET_CEL_SHARE)}`,
  ];
  if (propagation) {
    lines.push(
      `${label(`approval propagation p99 < ${TARGET_APPROVAL_P99_MS} ms`)}p50 ${ms(propagation.p50)}, p99 ${ms(propagation.p99)} over ${propagation.samples} approvals ${verdict(propagation.p99 < TARGET_APPROVAL_P99_MS)}`,
    );
  } else {
    lines.push(
      `${label(`approval propagation p99 < ${TARGET_APPROVAL_P99_MS} ms`)}${verdict(false)}: not measured`,
    );
  }
  return lines;
}
