import { ensureReceiptPartitions } from '@toolgate/db';
import type { TestDatabase } from '@toolgate/db/testing';
import pg from 'pg';
import pino from 'pino';
import { createApp } from '../apps/api/src/create-app.ts';
import { ApiEnv } from '../apps/api/src/env.ts';
import { BootstrapOperator } from '../apps/api/src/identities/bootstrap-operator.ts';
import { TokensService } from '../apps/api/src/identities/tokens.service.ts';
import { ResourceStore } from '../apps/api/src/resources/resource-store.service.ts';
import { SeedService } from '../apps/api/src/resources/seed.service.ts';

/** The receipt databases of the benchmarks: a million rows in one statement, and an API on them. */

const SYSTEM = { name: 'bench:setup', roles: ['operator'] as const };
const secs = (start: number) => `${((performance.now() - start) / 1000).toFixed(1)} s`;

/**
 * A million receipts in one statement: 20 gateways, 30 days, 200 tools with a cubic skew
 * (tool_0 is in about half the requests, tool_199 in under 1%), 20 rare tools (~100 rows each),
 * and `legacy_tool`, in a fifth of the requests of the first three days and never since.
 */
const FILL_SQL = `
INSERT INTO receipts (id, gateway, seq, received_at, surface, model, stream, status, outcome,
  identity_human, identity_service, identity_session, binding, tools, rules, policies,
  prev_hash, hash, body)
SELECT
  'r-' || lpad(i::text, 7, '0'),
  'gw-' || lpad((i % 20)::text, 2, '0'),
  i / 20 + 1,
  timestamptz '2026-01-01T00:00:00Z' + (i * 30.0 / $1) * interval '1 day',
  CASE WHEN i % 3 = 0 THEN 'anthropic-messages' ELSE 'openai-chat' END,
  CASE WHEN i % 3 = 0 THEN 'claude-sonnet-4-5' ELSE 'gpt-4o-mini' END,
  i % 4 = 0,
  CASE WHEN o < 0.07 THEN 502 ELSE 200 END,
  CASE WHEN o < 0.07 THEN 'error' WHEN o < 0.10 THEN 'blocked' ELSE 'ok' END,
  CASE WHEN i % 10 = 0 THEN NULL ELSE 'user-' || (i % 500) END,
  CASE WHEN i % 10 = 0 THEN 'svc-' || (i % 20) END,
  'sess-' || (i / 7),
  'verified',
  tools,
  CASE WHEN 'tool_3' = ANY(tools) THEN ARRAY['guardrails/hide-pr-creation'] ELSE '{}' END
    || CASE WHEN o > 0.95 THEN ARRAY['guardrails/hide-deletes'] ELSE '{}' END
    || CASE WHEN 'tool_1' = ANY(tools) THEN ARRAY['annotate/search-read-only'] ELSE '{}' END,
  CASE WHEN i % 10 = 0 THEN ARRAY['strict'] ELSE ARRAY['guardrails', 'annotate'] END,
  CASE WHEN i >= 20 THEN 'sha256:' || md5((i - 20)::text) || md5('x' || (i - 20)) END,
  'sha256:' || md5(i::text) || md5('x' || i),
  jsonb_build_object('schema', 'toolgate.receipt.v1', 'id', 'r-' || lpad(i::text, 7, '0'),
    'tools', to_jsonb(tools), 'note', repeat('receipt body ', 30))
FROM (
  SELECT i, random() AS o,
    ARRAY(SELECT DISTINCT 'tool_' || floor(200 * power(random(), 3))::int
          FROM generate_series(1, 3 + (i % 4) + (i * 0)))
      || CASE WHEN random() < 0.002 THEN ARRAY['rare_' || floor(random() * 20)::int] ELSE '{}' END
      || CASE WHEN i < $1 / 10 AND random() < 0.2 THEN ARRAY['legacy_tool'] ELSE '{}' END
      AS tools
  FROM generate_series(0, $1 - 1) AS i
) g`;

/**
 * The overview's row of each receipt (`receipt_stats`): three requests in five call one or two
 * of their tools, the blocked ones (3%) block a call (`hidden` or `guardrails/no-deletes`), 2%
 * more wait for approval; mediation 0.2–2.1 ms, upstream 150–1150 ms.
 */
const STATS_SQL = `
INSERT INTO receipt_stats (id, received_at, outcome_class, mediation_ms, upstream_ms,
  called_tools, blocked_calls, withheld_calls)
SELECT id, received_at,
  CASE WHEN outcome = 'blocked' THEN 'blocked' WHEN seq % 50 = 7 THEN 'withheld' ELSE outcome END,
  0.2 + (seq % 97) / 50.0,
  150 + (seq * 7919) % 1000,
  CASE WHEN seq % 5 < 3 THEN tools[1:1 + seq % 2] ELSE '{}' END,
  CASE WHEN outcome <> 'blocked' THEN '{}'
    WHEN seq % 2 = 0 THEN ARRAY['hidden'] ELSE ARRAY['guardrails/no-deletes'] END,
  CASE WHEN outcome <> 'blocked' AND seq % 50 = 7 THEN ARRAY['guardrails/ask-first'] ELSE '{}' END
FROM receipts`;

/**
 * Loads `rows` synthetic receipts into the receipts table of `url` in one statement (indexes
 * dropped first and rebuilt after, then VACUUM ANALYZE), into January 2026's partition, created
 * first, with their `receipt_links` and `receipt_stats`: the million-row database of the receipts query and console
 * benchmarks.
 */
export async function fillReceipts(
  url: string,
  rows: number,
  progress: (line: string) => void = () => {},
): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await ensureReceiptPartitions(url, { months: [new Date('2026-01-01T00:00:00Z')] });
    // Bulk load, then index: building an index once is far cheaper than a million updates of it.
    // Dropping a partitioned index drops its partitions' too; pg_indexes spells the parent's
    // `ON ONLY`, which would build it for the parent alone.
    const { rows: indexes } = await client.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, replace(indexdef, ' ON ONLY ', ' ON ') AS indexdef FROM pg_indexes
       WHERE tablename = 'receipts' AND indexname <> 'receipts_pkey'`,
    );
    for (const index of indexes) await client.query(`DROP INDEX "${index.indexname}"`);
    await client.query('SELECT setseed(0.42)');
    let start = performance.now();
    await client.query(FILL_SQL, [rows]);
    await client.query(
      'INSERT INTO receipt_links (id, gateway, seq, received_at, hash) SELECT id, gateway, seq, received_at, hash FROM receipts',
    );
    await client.query(STATS_SQL);
    progress(`inserted ${rows.toLocaleString('en-US')} rows in ${secs(start)}`);
    start = performance.now();
    await client.query(`SET maintenance_work_mem = '256MB'`);
    for (const index of indexes) await client.query(index.indexdef);
    progress(`built ${indexes.length} indexes in ${secs(start)}`);
    start = performance.now();
    await client.query('VACUUM ANALYZE receipts, receipt_links, receipt_stats');
    progress(`VACUUM ANALYZE in ${secs(start)}`);
  } finally {
    await client.end();
  }
}

/** A listening API on `database`, with an operator token and the given gateways registered. */
export async function startApiOn(database: TestDatabase, gateways: ReadonlyArray<string>) {
  const env = ApiEnv.parse({ LOG_LEVEL: 'silent', PORT: '0' });
  // BENCH_API_LOG=error shows what a failing API logged (silent otherwise: the bench prints).
  const log = pino({ level: process.env.BENCH_API_LOG ?? 'silent' });
  const app = await createApp({ databaseUrl: database.url, env, log });
  await app.get(SeedService).ensureSeeded();
  const operatorToken = (await app.get(BootstrapOperator).ensureOperator()) as string;
  const store = app.get(ResourceStore);
  const tokens = app.get(TokensService);
  const gatewayTokens = new Map<string, string>();
  for (const gateway of gateways) {
    const identity = `${gateway}-identity`;
    await store.create(
      'Identity',
      { metadata: { name: identity }, spec: { type: 'service', roles: ['gateway'] } },
      SYSTEM,
    );
    await store.create('Gateway', { metadata: { name: gateway }, spec: { identity } }, SYSTEM);
    gatewayTokens.set(gateway, (await tokens.issue(identity, {}, SYSTEM)).token);
  }
  await app.listen(0, '127.0.0.1');
  const url = await app.getUrl();
  return {
    app,
    url,
    database,
    operatorToken,
    gatewayTokens,
    async close() {
      await app.close();
      await database.drop();
    },
  };
}
