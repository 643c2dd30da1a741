import { createTestDatabase, startTestPostgres } from '@toolgate/db/testing';
import pg from 'pg';
import { chainOf, fixtureReceiptBody } from './receipt-fixtures.ts';
import { receiptColumns } from './receipt-columns.ts';
import { insertStatement } from './receipts.repository.ts';

const server = await startTestPostgres();
try {
  const db = await createTestDatabase(server.adminUrl);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const make = (p: string) => chainOf(Array.from({ length: 1000 }, (_, i) => fixtureReceiptBody({ id: `${p}-${i}`, gateway: p, receivedAt: new Date(Date.UTC(2026,0,1) + i*1000).toISOString(), tools: ['search_code','read_file','write_file','create_pull_request','run_tests'], calls: ['read_file'] }))).map((r, i) => ({ ...receiptColumns(r), seq: BigInt(i + 1), body: JSON.stringify(r) }));
  for (let round = 0; round < 8; round++) {
    const variant = round % 2 === 0 ? 'onconflict' : 'plain';
    const a = insertStatement(`a${round}`, make(`a${round}`));
    const text = variant === 'plain' ? a.text.replace('ON CONFLICT (id) DO NOTHING', '') : a.text;
    await client.query('BEGIN');
    const t = performance.now();
    const { rows } = await client.query('EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ' + text, a.values as unknown[]);
    const ms = performance.now() - t;
    await client.query('COMMIT');
    const plan = rows[0]['QUERY PLAN'][0];
    const walk = (n: any, d = 0): string => `${' '.repeat(d)}${n['Node Type']} ${n['Actual Total Time']}\n` + (n.Plans ?? []).map((c: any) => walk(c, d + 2)).join('');
    console.log(variant, ms.toFixed(0), 'exec', plan['Execution Time'].toFixed(0), 'plan', plan['Planning Time'].toFixed(1), 'triggers', JSON.stringify(plan.Triggers));
    if (round >= 6) console.log(walk(plan.Plan));
  }
  await client.end();
} finally {
  await server.teardown();
}
