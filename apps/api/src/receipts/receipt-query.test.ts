import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  type ApiClient,
  ApiError,
  type ReceiptQuery,
  type ReceiptSummary,
} from '@toolgate/contract';
import { ingestBatchOf, type Receipt } from '@toolgate/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '../database/prisma.service.ts';
import { startTestApi, type TestApi } from '../testing/test-api.ts';
import { chainOf, FIXTURE_POLICIES, fixtureReceiptBody } from './receipt-fixtures.ts';
import { type ReceiptFilter, ReceiptListRepository } from './receipt-list.repository.ts';
import { MAX_TOOL_CONTAINS_NAMES } from './receipt-query.service.ts';
import { call, registerGateway } from './receipts-testing.ts';

let api: TestApi;
let auditor: ApiClient;
const stored: Receipt[] = [];

const TOOL_SETS = [
  ['search_code', 'read_file'],
  ['create_pull_request', 'read_file'],
  ['delete_branch', 'list_issues'],
  ['run_tests'],
];
const CALLS = [[], ['read_file'], ['create_pull_request'], ['delete_branch'], ['run_tests']];
const IDENTITIES = [
  { human: 'alice', session: 'sess-a' },
  { human: 'bob', session: 'sess-b' },
  { service: 'ci-bot', session: 'sess-ci' },
];
const BASE = Date.UTC(2026, 2, 1);

/** 3 gateways × 40 receipts over two days; every third timestamp is shared by all gateways. */
beforeAll(async () => {
  api = await startTestApi();
  auditor = (await api.identity('query-auditor', ['auditor'])).client;
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
  for (const [g, name] of ['q1', 'q2', 'q3'].entries()) {
    const client = await registerGateway(api, name);
    const bodies = Array.from({ length: 40 }, (_, i) => {
      const k = i + g;
      const shared = i % 3 === 0;
      const body = fixtureReceiptBody({
        id: `${name}-${String(i).padStart(3, '0')}`,
        gateway: name,
        receivedAt: new Date(BASE + i * 3_600_000 + (shared ? 0 : g * 1000)).toISOString(),
        tools: TOOL_SETS[k % TOOL_SETS.length] as string[],
        calls: CALLS[k % CALLS.length] as string[],
        identity: IDENTITIES[k % IDENTITIES.length] as { human?: string; service?: string },
        status: k % 7 === 0 ? 502 : 200,
        // Some of q3's requests used the provider's hosted web search, for the contract filter.
        webSearch: name === 'q3' && i % 5 === 2,
      });
      // Some of q3's traffic came in on another surface, for the surface filter.
      return name === 'q3' && i % 4 === 0
        ? { ...body, surface: 'anthropic-messages' as const }
        : body;
    });
    const chain = chainOf(bodies);
    await client.call('receipts.ingest', { params: { name }, body: ingestBatchOf(chain) });
    stored.push(...chain);
  }
});
afterAll(() => api.close());

/** Newest first, ties by id descending: the order the API promises. */
function newestFirst(receipts: Receipt[]): string[] {
  return [...receipts]
    .sort((a, b) => {
      const t = Date.parse(b.timestamps.received_at) - Date.parse(a.timestamps.received_at);
      return t !== 0 ? t : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
    })
    .map((r) => r.id);
}

/** Every page of a query, following `continue` tokens. */
async function allPages(query: ReceiptQuery, limit = 7): Promise<ReceiptSummary[]> {
  const items: ReceiptSummary[] = [];
  let token: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await call(auditor, 'receipts.list', {
      query: { ...query, limit, ...(token ? { continue: token } : {}) },
    });
    items.push(...result.items);
    token = result.metadata.continue;
    if (!token) return items;
    expect(result.items).toHaveLength(limit);
  }
  throw new Error('too many pages');
}

const toolNames = (r: Receipt) => [
  ...r.tools.map((t) => t.name),
  ...(r.response?.tool_calls.map((c) => c.name) ?? []),
];
/** An `until` just past a receipt (until is exclusive). */
const nextMs = (r: Receipt) => new Date(Date.parse(r.timestamps.received_at) + 1).toISOString();
const WEB_SEARCH = 'wardwright.web_search.v1';
const usedWebSearch = (r: Receipt) =>
  r.tools.some((t) => t.capability === WEB_SEARCH) &&
  Boolean(r.response?.hosted_tool_events.some((e) => e.capability === WEB_SEARCH));
const blocked = (r: Receipt) => r.response?.tool_calls.some((c) => c.policy_state === 'blocked');

describe('receipt queries', () => {
  it('pages through everything newest first, without duplicates or omissions', async () => {
    const items = await allPages({}, 7);
    expect(items.map((i) => i.id)).toEqual(newestFirst(stored));
    expect(new Set(items.map((i) => i.id)).size).toBe(stored.length);
  });

  it('returns summaries with the derived columns', async () => {
    const { items } = await call(auditor, 'receipts.list', { query: { gateway: 'q1', limit: 1 } });
    const receipt = stored.find((r) => r.id === 'q1-039') as Receipt;
    expect(items[0]).toEqual({
      id: 'q1-039',
      gateway: 'q1',
      seq: '40',
      receivedAt: receipt.timestamps.received_at,
      surface: 'openai-chat',
      model: 'gpt-4o-mini',
      stream: false,
      status: 200,
      outcome: 'ok',
      identity: { human: 'alice', service: null, session: 'sess-a', binding: 'verified' },
      tools: ['run_tests'],
      calls: [{ name: 'run_tests', state: 'allowed' }],
      callCount: 1,
      rules: [],
      policies: ['guardrails', 'annotate'],
      hash: receipt.hash,
    });
  });

  const cases: Array<[string, ReceiptQuery, (r: Receipt) => boolean]> = [
    ['gateway', { gateway: 'q2' }, (r) => r.gateway === 'q2'],
    ['tool (request side)', { tool: 'list_issues' }, (r) => toolNames(r).includes('list_issues')],
    ['tool (response side)', { tool: 'run_tests' }, (r) => toolNames(r).includes('run_tests')],
    [
      'rule policy/rule',
      { rule: 'guardrails/hide-deletes' },
      (r) => r.tools.some((t) => t.name === 'delete_branch'),
    ],
    [
      'rule by bare id',
      { rule: 'hide-pr-creation' },
      (r) => r.tools.some((t) => t.name === 'create_pull_request'),
    ],
    ['rule of an unknown policy', { rule: 'nobody/hide-deletes' }, () => false],
    ['policy', { policy: 'annotate' }, (r) => r.bundle.policies.some((p) => p.name === 'annotate')],
    ['identity (human)', { identity: 'bob' }, (r) => r.identity.human === 'bob'],
    ['identity (service)', { identity: 'ci-bot' }, (r) => r.identity.service === 'ci-bot'],
    ['identity (session)', { identity: 'sess-a' }, (r) => r.identity.session === 'sess-a'],
    ['surface', { surface: 'anthropic-messages' }, (r) => r.surface === 'anthropic-messages'],
    ['capability contract', { contract: WEB_SEARCH }, usedWebSearch],
    [
      'capability contract on a surface (a Fidelity cell)',
      { contract: WEB_SEARCH, surface: 'openai-chat' },
      (r) => usedWebSearch(r) && r.surface === 'openai-chat',
    ],
    ['capability contract no receipt used', { contract: 'wardwright.code_exec.v1' }, () => false],
    ['surface (the other)', { surface: 'openai-chat' }, (r) => r.surface === 'openai-chat'],
    ['outcome blocked', { outcome: 'blocked' }, (r) => Boolean(blocked(r))],
    [
      'outcome error',
      { outcome: 'error' },
      (r) => !blocked(r) && (r.outcome.status < 200 || r.outcome.status > 299),
    ],
    [
      'outcome ok',
      { outcome: 'ok' },
      (r) => !blocked(r) && r.outcome.status >= 200 && r.outcome.status < 300,
    ],
    [
      'time window (since inclusive, until exclusive)',
      { since: new Date(BASE + 10 * 3_600_000).toISOString(), until: '2026-03-02T06:00:00+00:00' },
      (r) => {
        const t = Date.parse(r.timestamps.received_at);
        return t >= BASE + 10 * 3_600_000 && t < Date.parse('2026-03-02T06:00:00Z');
      },
    ],
    [
      'filters combined',
      { gateway: 'q3', tool: 'read_file', identity: 'alice' },
      (r) =>
        r.gateway === 'q3' && toolNames(r).includes('read_file') && r.identity.human === 'alice',
    ],
  ];

  it.each(cases)('filters by %s, across pages', async (_name, query, predicate) => {
    const expected = newestFirst(stored.filter(predicate));
    const items = await allPages(query, 4);
    expect(items.map((i) => i.id)).toEqual(expected);
    if (
      !('rule' in query && query.rule === 'nobody/hide-deletes') &&
      query.contract !== 'wardwright.code_exec.v1'
    ) {
      expect(expected.length).toBeGreaterThan(4);
    }
  });

  it('gives the same pages whichever access path reads them', async () => {
    const repository = api.app.get(ReceiptListRepository);
    for (const [, query, predicate] of cases) {
      const filter = {
        ...query,
        ...(query.rule?.includes('/') ? { qualifiedRule: query.rule } : {}),
        ...(query.rule && !query.rule.includes('/') ? { ruleId: query.rule } : {}),
        ...(query.contract ? { capability: query.contract } : {}),
      } as ReceiptFilter;
      const expected = newestFirst(stored.filter(predicate));
      // `walk` here uses windows of 10 rows: most pages need several and the index fallback.
      for (const strategy of ['walk', 'index', 'auto'] as const) {
        const rows = await repository.list(filter, 5, strategy);
        expect(rows.map((r) => r.id)).toEqual(expected.slice(0, 5));
        const last = rows.at(-1);
        if (!last) continue;
        const before = { receivedAt: last.receivedAt.toISOString(), id: last.id };
        const next = await repository.list({ ...filter, before }, 5, strategy);
        expect(next.map((r) => r.id)).toEqual(expected.slice(5, 10));
      }
    }
  });

  it('lists the tools called with what the policy did, not the offered set', async () => {
    const withBlockedCall = stored.find((r) => blocked(r)) as Receipt;
    const { items } = await call(auditor, 'receipts.list', {
      query: { gateway: withBlockedCall.gateway, until: nextMs(withBlockedCall), limit: 1 },
    });
    expect(items[0]?.id).toBe(withBlockedCall.id);
    expect(items[0]?.calls).toEqual(
      withBlockedCall.response?.tool_calls.map((c) => ({
        name: c.name,
        state: c.policy_state,
        ...(c.reason !== undefined ? { reason: c.reason } : {}),
      })),
    );
    expect(items[0]?.calls.some((c) => c.state === 'blocked')).toBe(true);
  });

  const oldestCases = cases.filter(([name]) =>
    ['gateway', 'tool (request side)', 'rule by bare id', 'filters combined'].includes(name),
  );
  it.each(oldestCases)('pages oldest first (%s), across pages', async (_n, query, predicate) => {
    const expected = newestFirst(stored.filter(predicate)).reverse();
    const items = await allPages({ ...query, order: 'oldest' }, 4);
    expect(items.map((i) => i.id)).toEqual(expected);
  });

  it('gives the same oldest-first pages whichever access path reads them', async () => {
    const repository = api.app.get(ReceiptListRepository);
    const expected = newestFirst(stored.filter((r) => toolNames(r).includes('list_issues')));
    expected.reverse();
    for (const strategy of ['walk', 'index', 'auto'] as const) {
      const filter: ReceiptFilter = { tool: 'list_issues', order: 'oldest' };
      const rows = await repository.list(filter, 5, strategy);
      expect(rows.map((r) => r.id)).toEqual(expected.slice(0, 5));
      const last = rows.at(-1) as { receivedAt: Date; id: string };
      const before = { receivedAt: last.receivedAt.toISOString(), id: last.id };
      const next = await repository.list({ ...filter, before }, 5, strategy);
      expect(next.map((r) => r.id)).toEqual(expected.slice(5, 10));
    }
  });

  it('refuses a continue token used with the other order', async () => {
    const first = await call(auditor, 'receipts.list', { query: { limit: 2 } });
    const token = first.metadata.continue as string;
    const error = await auditor
      .call('receipts.list', { query: { order: 'oldest', continue: token } })
      .catch((e: unknown) => e);
    expect((error as ApiError).httpStatus).toBe(400);
  });

  it('filters by a tool-name substring, case-insensitively, wildcards taken literally', async () => {
    const expected = newestFirst(
      stored.filter((r) => toolNames(r).some((t) => t.includes('pull'))),
    );
    expect(expected.length).toBeGreaterThan(4);
    expect((await allPages({ toolContains: 'PuLL' }, 4)).map((i) => i.id)).toEqual(expected);
    expect(await allPages({ toolContains: '%' })).toEqual([]);
    expect(await allPages({ toolContains: 'read_' })).toHaveLength(
      stored.filter((r) => toolNames(r).includes('read_file')).length,
    );
    const tooLong = await api.fetch(
      `/apis/toolgate.dev/v1/receipts?toolContains=${'x'.repeat(65)}`,
      { token: api.operatorToken },
    );
    expect(tooLong.status).toBe(400);
  });

  it('refuses a substring in too many tool names, naming the field', async () => {
    const names = Array.from({ length: MAX_TOOL_CONTAINS_NAMES + 1 }, (_, i) => `vague_${i}`);
    const prisma = api.app.get(PrismaService).client;
    await prisma.$executeRaw`INSERT INTO receipt_tool_names (name) SELECT unnest(${names}::text[])`;
    try {
      const response = await api.fetch('/apis/toolgate.dev/v1/receipts?toolContains=vague', {
        token: api.operatorToken,
      });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain('toolContains');
    } finally {
      await prisma.$executeRaw`DELETE FROM receipt_tool_names WHERE name LIKE 'vague%'`;
    }
  });

  it('counts the matches of the list filters, and stops at the cap', async () => {
    expect(await call(auditor, 'receipts.count', {})).toEqual({ count: 120, capped: false });
    for (const [name, query, predicate] of cases) {
      const { count } = await call(auditor, 'receipts.count', { query });
      expect(count, name).toBe(stored.filter(predicate).length);
    }
    const repository = api.app.get(ReceiptListRepository);
    expect(await repository.count({ gateway: 'q1' }, 10)).toEqual({ count: 10, capped: true });
    expect(await repository.count({ gateway: 'q1' }, 40)).toEqual({ count: 40, capped: false });
  });

  it('refuses a time range that ends before it starts, naming the field', async () => {
    for (const route of ['receipts', 'receipt-count']) {
      const response = await api.fetch(
        `/apis/toolgate.dev/v1/${route}?since=2026-03-02T00:00:00Z&until=2026-03-01T00:00:00Z`,
        { token: api.operatorToken },
      );
      expect(response.status, route).toBe(400);
      expect(await response.text()).toContain('since');
    }
  });

  it('suggests filter values from resources, revisions and recent receipts', async () => {
    const values = async (
      field: 'gateway' | 'identity' | 'policy' | 'rule' | 'tool',
      contains?: string,
    ) =>
      (
        await call(auditor, 'receipts.values', {
          params: { field },
          ...(contains !== undefined ? { query: { contains } } : {}),
        })
      ).items;
    expect(await values('gateway')).toEqual(expect.arrayContaining(['q1', 'q2', 'q3']));
    expect(await values('policy')).toEqual(['annotate', 'guardrails']);
    expect(await values('rule')).toEqual([
      'annotate/search-read-only',
      'guardrails/hide-deletes',
      'guardrails/hide-pr-creation',
    ]);
    expect(await values('identity')).toEqual(expect.arrayContaining(['alice', 'bob', 'ci-bot']));
    expect(await values('tool', 'BRANCH')).toEqual(['delete_branch']);
    expect(await values('rule', 'delete')).toEqual(['guardrails/hide-deletes']);
    const bad = await api.fetch('/apis/toolgate.dev/v1/receipt-values/model', {
      token: api.operatorToken,
    });
    expect(bad.status).toBe(400);
  });

  it('rejects a continue token it did not issue with 400', async () => {
    for (const token of ['garbage', Buffer.from('{"t":"x","id":1}').toString('base64url')]) {
      const error = await auditor
        .call('receipts.list', { query: { continue: token } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).httpStatus).toBe(400);
    }
  });

  it('refuses a contract filter that is not a contract id, naming the field', async () => {
    for (const value of ['web_search', 'wardwright.web_search', 'WARDWRIGHT.web_search.v1', '']) {
      for (const route of ['receipts', 'receipt-count']) {
        const response = await api.fetch(
          `/apis/toolgate.dev/v1/${route}?contract=${encodeURIComponent(value)}`,
          { token: api.operatorToken },
        );
        expect(response.status, `${route} ${value}`).toBe(400);
        expect(await response.text()).toContain('contract');
      }
    }
  });

  it('rejects unknown query parameters and bad values with 400', async () => {
    for (const query of ['outcome=maybe', 'surface=telnet', 'surface=']) {
      const response = await api.fetch(`/apis/toolgate.dev/v1/receipts?${query}`, {
        token: api.operatorToken,
      });
      expect(response.status, query).toBe(400);
    }
  });

  it('answers 404 for an unknown receipt and 403 for a gateway token', async () => {
    const missing = await auditor
      .call('receipts.get', { params: { id: 'nope' } })
      .catch((e: unknown) => e);
    expect((missing as ApiError).httpStatus).toBe(404);
    const { client } = await api.identity('query-gateway', ['gateway']);
    const forbidden = await client.call('receipts.list', {}).catch((e: unknown) => e);
    expect((forbidden as ApiError).httpStatus).toBe(403);
  });
});

describe('the capabilities column', () => {
  const MIGRATION = fileURLToPath(
    new URL(
      '../../../../prisma/migrations/20261215090000_receipt_capabilities/migration.sql',
      import.meta.url,
    ),
  );

  it("the migration's backfill derives what ingest derives (receipts stored before it verify)", async () => {
    const sql = await readFile(MIGRATION, 'utf8');
    const backfill = sql.slice(sql.indexOf('WITH derived AS'));
    const db = new pg.Client({ connectionString: api.database.url });
    await db.connect();
    try {
      // What the column holds for a receipt stored before it existed.
      await db.query(`UPDATE receipts SET capabilities = '{}'`);
      const blanked = await call(auditor, 'receipts.verify', { params: { name: 'q3' } });
      expect(blanked.firstBreak).toMatchObject({
        reason: 'column_mismatch',
        field: 'capabilities',
        expected: JSON.stringify([WEB_SEARCH]),
      });
      await db.query(backfill);
    } finally {
      await db.end();
    }
    for (const name of ['q1', 'q2', 'q3']) {
      const result = await call(auditor, 'receipts.verify', { params: { name } });
      expect(result.firstBreak, name).toBeUndefined();
      expect(result.valid, name).toBe(true);
    }
    expect((await allPages({ contract: WEB_SEARCH })).map((i) => i.id)).toEqual(
      newestFirst(stored.filter(usedWebSearch)),
    );
  });
});
