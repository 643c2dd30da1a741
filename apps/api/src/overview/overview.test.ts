import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { ApiClient, Overview, Status } from '@toolgate/contract';
import { ingestBatchOf, type ReceiptBody } from '@toolgate/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainOf, FIXTURE_POLICIES, fixtureReceiptBody } from '../receipts/receipt-fixtures.ts';
import { call, registerGateway } from '../receipts/receipts-testing.ts';
import { startTestApi, type TestApi } from '../testing/test-api.ts';
import { approvalRequest } from '../tool-call-approvals/approvals-testing.ts';

const MIGRATION = fileURLToPath(
  new URL(
    '../../../../prisma/migrations/20261202090000_receipt_stats/migration.sql',
    import.meta.url,
  ),
);
const P = '/apis/toolgate.dev/v1';
const BASE = Date.UTC(2026, 2, 1, 10);
const FROM = new Date(BASE).toISOString();
const TO = new Date(BASE + 2 * 3_600_000).toISOString();

let api: TestApi;
let auditor: ApiClient;
let gatewayClient: ApiClient;
let gatewayToken: string;

/** A call of `body` withheld by a call-time rule (`deny` blocks it, `approval_required` defers it). */
function withCallDecision(
  body: ReceiptBody,
  outcome: 'deny' | 'approval_required',
  rule: string,
): ReceiptBody {
  const response = body.response;
  if (!response) throw new Error('the fixture has no response');
  const [call, ...rest] = response.tool_calls;
  if (!call) throw new Error('the fixture has no call');
  return {
    ...body,
    response: {
      ...response,
      tool_calls: [
        {
          ...call,
          policy_state: outcome === 'deny' ? 'blocked' : 'deferred',
          reason: `rule:${rule}`,
          decision: {
            outcome,
            rule,
            policy: 'guardrails',
            ...(outcome === 'approval_required' ? { approval: call.action_id } : {}),
          },
        },
        ...rest,
      ],
    },
  };
}

/**
 * Two hours of one gateway's traffic, in 30-minute quarters: 4 ok, 2 errors, 2 calls of a
 * hidden tool (blocked: `hidden`), 1 call denied by `guardrails/no-reads`, 2 calls waiting for
 * approval (`guardrails/ask-first`). Mediation latency is the receipt's index + 1 ms.
 */
function seededBodies(): ReceiptBody[] {
  const at = (minutes: number) => new Date(BASE + minutes * 60_000).toISOString();
  const plan: Array<{ minute: number; calls: string[]; status?: number; kind?: string }> = [
    { minute: 0, calls: ['read_file'] },
    { minute: 10, calls: ['read_file', 'search_code'] },
    { minute: 20, calls: [], status: 502 },
    { minute: 40, calls: ['create_pull_request'] },
    { minute: 50, calls: ['read_file'], kind: 'deny' },
    { minute: 65, calls: ['run_tests'], kind: 'ask' },
    { minute: 70, calls: ['run_tests'], kind: 'ask' },
    { minute: 95, calls: ['create_pull_request'] },
    { minute: 100, calls: ['search_code'], status: 500 },
    { minute: 110, calls: ['read_file'] },
    { minute: 119, calls: [] },
  ];
  return plan.map((step, index) => {
    const body = fixtureReceiptBody({
      id: `ov-${index}`,
      gateway: 'ov1',
      receivedAt: at(step.minute),
      tools: ['read_file', 'search_code', 'create_pull_request', 'run_tests'],
      calls: step.calls,
      ...(step.status !== undefined ? { status: step.status } : {}),
    });
    const timed = { ...body, latency_ms: { total: 500, mediation: index + 1, upstream: 400 } };
    if (step.kind === 'deny') return withCallDecision(timed, 'deny', 'no-reads');
    if (step.kind === 'ask') return withCallDecision(timed, 'approval_required', 'ask-first');
    return timed;
  });
}

async function putStatus(name: string, status: Record<string, unknown>): Promise<void> {
  await api.operator.call('gateways.replaceStatus', {
    params: { name },
    body: { status: status as never },
  });
}

beforeAll(async () => {
  api = await startTestApi();
  auditor = (await api.identity('overview-auditor', ['auditor'])).client;
  for (const policy of FIXTURE_POLICIES) {
    await api.operator.call('mediationPolicies.create', {
      body: {
        apiVersion: 'toolgate.dev/v1',
        kind: 'MediationPolicy',
        metadata: { name: policy.name },
        spec: policy.spec as never,
      },
    });
  }
  gatewayClient = await registerGateway(api, 'ov1');
  for (const name of ['ov2', 'ov3', 'ov4']) await registerGateway(api, name);
  const chain = chainOf(seededBodies());
  const results = await call(gatewayClient, 'receipts.ingest', {
    params: { name: 'ov1' },
    body: ingestBatchOf(chain),
  });
  expect(results.results.map((r) => r.result)).toEqual(chain.map(() => 'created'));
  gatewayToken = (await api.identity('ov-approver-gw', ['gateway'])).token;
});
afterAll(() => api?.close());

async function overview(query: Record<string, string | number> = {}): Promise<Overview> {
  return call(auditor, 'overview.get', { query: query as never });
}

describe('GET /receipts/overview', () => {
  it('counts requests per bucket in exclusive classes: blocked, withheld, error, ok', async () => {
    const result = await overview({ from: FROM, to: TO, bucket: 1800 });

    expect(result.bucketSeconds).toBe(1800);
    expect(result.requests).toEqual([
      { start: FROM, ok: 2, blocked: 0, withheld: 0, error: 1 },
      { start: new Date(BASE + 1_800_000).toISOString(), ok: 0, blocked: 2, withheld: 0, error: 0 },
      { start: new Date(BASE + 3_600_000).toISOString(), ok: 0, blocked: 0, withheld: 2, error: 0 },
      { start: new Date(BASE + 5_400_000).toISOString(), ok: 2, blocked: 1, withheld: 0, error: 1 },
    ]);
    expect(result.totals).toEqual({ requests: 11, ok: 4, blocked: 3, withheld: 2, error: 2 });
  });

  it("lists behind each class exactly the receipts it counted (the charts' links)", async () => {
    const { totals } = await overview({ from: FROM, to: TO });
    for (const outcome of ['ok', 'blocked', 'withheld', 'error'] as const) {
      const listed = await call(auditor, 'receipts.list', {
        query: { gateway: 'ov1', since: FROM, until: TO, outcome, limit: 50 },
      });
      expect(listed.items.length, outcome).toBe(totals[outcome]);
    }
    const withheld = await call(auditor, 'receipts.list', {
      query: { gateway: 'ov1', outcome: 'withheld', limit: 50 },
    });
    expect(withheld.items.map((r) => r.id).sort()).toEqual(['ov-5', 'ov-6']);
  });

  it('fills empty buckets with zeros and leaves them out of the latency series', async () => {
    const from = new Date(BASE - 3_600_000).toISOString();
    const result = await overview({ from, to: FROM, bucket: 600 });

    expect(result.requests).toHaveLength(6);
    expect(result.requests.every((b) => b.ok + b.blocked + b.withheld + b.error === 0)).toBe(true);
    expect(result.latency).toEqual([]);
    expect(result.totals.requests).toBe(0);
  });

  it('reports mediation and upstream percentiles per bucket as PostgreSQL interpolates them', async () => {
    const result = await overview({ from: FROM, to: TO, bucket: 1800 });

    // First quarter: receipts 0, 1, 2 → mediation 1, 2, 3 ms.
    expect(result.latency[0]).toEqual({
      start: FROM,
      mediation: { p50: 2, p95: 2.9, p99: 2.98 },
      upstream: { p50: 400, p95: 400, p99: 400 },
    });
    expect(result.latency).toHaveLength(4);
  });

  it('lists blocked and withheld calls by the rule that decided, and the most called tools', async () => {
    const result = await overview({ from: FROM, to: TO });

    expect(result.byRule).toEqual([
      { rule: 'guardrails/ask-first', blocked: 0, withheld: 2 },
      { rule: 'hidden', blocked: 2, withheld: 0 },
      { rule: 'guardrails/no-reads', blocked: 1, withheld: 0 },
    ]);
    expect(result.topTools).toEqual([
      { tool: 'read_file', calls: 4 },
      { tool: 'create_pull_request', calls: 2 },
      { tool: 'run_tests', calls: 2 },
      { tool: 'search_code', calls: 2 },
    ]);
  });

  it("links a call-time rule to its receipts: the list's rule filter finds the calls it decided", async () => {
    const ids = async (query: Record<string, string>) =>
      (await call(auditor, 'receipts.list', { query })).items.map((item) => item.id).sort();

    expect(await ids({ rule: 'guardrails/ask-first' })).toEqual(['ov-5', 'ov-6']);
    expect(await ids({ rule: 'guardrails/no-reads' })).toEqual(['ov-4']);
    // As the overview links it: the range's bounds narrow the lookup (ov-5 at 65 min, ov-6 at 70).
    const until = new Date(BASE + 67 * 60_000).toISOString();
    expect(await ids({ rule: 'guardrails/ask-first', since: FROM, until })).toEqual(['ov-5']);
    // Request-time rules are found as before.
    expect(await ids({ rule: 'guardrails/hide-pr-creation' })).toHaveLength(11);
  });

  it("reports each gateway's sync state against the bundle it would be served now", async () => {
    const before = await overview({ from: FROM, to: TO });
    const desired = (name: string) =>
      before.gateways.find((g) => g.name === name)?.desiredBundleETag as string;
    const now = new Date().toISOString();
    await putStatus('ov1', {
      conditions: [],
      appliedBundleETag: desired('ov1'),
      lastSyncTime: now,
    });
    await putStatus('ov2', {
      conditions: [],
      appliedBundleETag: `sha256:${'0'.repeat(64)}`,
      lastSyncTime: now,
    });
    await putStatus('ov3', {
      conditions: [
        {
          type: 'Synced',
          status: 'False',
          reason: 'BundleRejected',
          message: 'policy guardrails: rule 2 does not compile',
          lastTransitionTime: now,
        },
      ],
      appliedBundleETag: desired('ov3'),
      lastSyncTime: now,
    });
    await putStatus('ov4', {
      conditions: [],
      appliedBundleETag: desired('ov4'),
      lastSyncTime: new Date(Date.now() - 10 * 60_000).toISOString(),
    });

    const after = await overview({ from: FROM, to: TO });

    expect(after.gateways.map((g) => [g.name, g.state, g.message])).toEqual([
      ['ov1', 'in_sync', null],
      ['ov2', 'behind', null],
      ['ov3', 'nack', 'policy guardrails: rule 2 does not compile'],
      ['ov4', 'stale', null],
    ]);
    expect(before.gateways.every((g) => g.state === 'stale')).toBe(true);
  });

  it('counts approvals waiting for a decision', async () => {
    expect((await overview()).pendingApprovals).toBe(0);
    const approver = await registerGateway(api, 'ov-approver');
    const request = approvalRequest('ov-approver');
    await approver.call('toolCallApprovals.request', {
      params: { name: request.spec.actionId },
      body: request,
    });
    expect((await overview()).pendingApprovals).toBe(1);
  });

  it('answers 400 naming the field for a bad or unbounded range', async () => {
    const cases: Array<[string, string]> = [
      [`from=${TO}&to=${FROM}`, 'to'],
      [`from=${FROM}`, 'to'],
      [`from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z`, 'from'],
      [`from=${FROM}&to=${TO}&bucket=30`, 'bucket'],
      [`from=2026-01-01T00:00:00Z&to=2026-01-08T00:00:00Z&bucket=60`, 'bucket'],
      [`from=yesterday&to=${TO}`, 'from'],
      [`bucket=0x10`, 'bucket'],
      // The default range (the last day) in one-minute buckets: 1440 of them.
      [`bucket=60`, 'bucket'],
      [`limit=5`, ''],
    ];
    for (const [query, field] of cases) {
      const response = await api.fetch(`${P}/receipts/overview?${query}`, {
        token: api.operatorToken,
      });
      expect(response.status, query).toBe(400);
      const status = (await response.json()) as Status;
      const fields = status.details?.causes?.map((cause) => cause.field) ?? [];
      if (field) expect(fields, query).toContain(field);
    }
  });

  it('is for operators and auditors only', async () => {
    const response = await api.fetch(`${P}/receipts/overview`, { token: gatewayToken });
    expect(response.status).toBe(403);
  });
});

describe('receipt_stats', () => {
  it('verify finds the chain intact with the columns ingest derived', async () => {
    const result = await call(auditor, 'receipts.verify', { params: { name: 'ov1' } });
    expect(result.valid).toBe(true);
  });

  it('verify finds an edited stats row: the overview cannot be doctored unseen', async () => {
    const db = new pg.Client({ connectionString: api.database.url });
    await db.connect();
    try {
      await db.query(`UPDATE receipt_stats SET blocked_calls = '{}' WHERE id = 'ov-3'`);
      const result = await call(auditor, 'receipts.verify', { params: { name: 'ov1' } });
      expect(result.firstBreak).toMatchObject({
        id: 'ov-3',
        reason: 'column_mismatch',
        field: 'receipt_stats.blocked_calls',
        expected: '["hidden"]',
      });
    } finally {
      await db.query(`UPDATE receipt_stats SET blocked_calls = '{hidden}' WHERE id = 'ov-3'`);
      await db.end();
    }
  });

  it("the migration's backfill derives what ingest derives (receipts stored before it verify)", async () => {
    const sql = await readFile(MIGRATION, 'utf8');
    const backfill = sql.slice(sql.indexOf('INSERT INTO "receipt_stats"'));
    const db = new pg.Client({ connectionString: api.database.url });
    await db.connect();
    try {
      // Only ov1 has receipts: with its stats rows gone it is a database from before the table.
      await db.query('DELETE FROM receipt_stats');
      const blanked = await call(auditor, 'receipts.verify', { params: { name: 'ov1' } });
      expect(blanked.firstBreak?.reason).toBe('column_mismatch');
      await db.query(backfill);
    } finally {
      await db.end();
    }
    const result = await call(auditor, 'receipts.verify', { params: { name: 'ov1' } });
    expect(result.firstBreak).toBeUndefined();
    expect(result.valid).toBe(true);
  });
});
