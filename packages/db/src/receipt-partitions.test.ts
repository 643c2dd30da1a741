import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { applyMigrations, MIGRATIONS_DIR } from './migrations.ts';
import { ensureReceiptPartitions, partitionName } from './receipt-partitions.ts';
import {
  createTestDatabase,
  receiptPartitionOf,
  receiptPartitions,
  type TestDatabase,
} from './testing.ts';

const adminUrl = inject('databaseAdminUrl');
const databases: TestDatabase[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(databases.map((database) => database.drop()));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function database(options: { migrationsDir?: string } = {}): Promise<TestDatabase> {
  const created = await createTestDatabase(adminUrl, options);
  databases.push(created);
  return created;
}

async function query<T extends pg.QueryResultRow>(
  url: string,
  sql: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** A minimal receipt row, as the pre-partitioning schema and this one both accept it. */
async function insertReceipt(url: string, id: string, seq: number, receivedAt: string) {
  await query(
    url,
    `INSERT INTO receipts (id, gateway, seq, received_at, surface, model, stream, status, outcome,
       binding, hash, body)
     VALUES ($1, 'gw', $2, $3, 'openai-chat', 'm', false, 200, 'ok', 'verified', $4, '{}')`,
    [id, seq, receivedAt, `sha256:${id}`],
  );
}

const NOV_15 = new Date('2026-11-15T12:00:00Z');

describe('receipt partitions', () => {
  it('names a partition by the UTC month', () => {
    expect(partitionName(new Date('2026-11-30T23:59:59.999Z'))).toBe('receipts_2026_11');
    expect(partitionName(new Date('2027-01-01T00:00:00Z'))).toBe('receipts_2027_01');
    expect(partitionName(new Date('2026-12-31T23:30:00-05:00'))).toBe('receipts_2027_01');
  });

  it('creates last month, this month and the next two once, and routes receipts by month', async () => {
    const { url } = await database();
    expect(await ensureReceiptPartitions(url, { now: NOV_15 })).toEqual({
      created: ['receipts_2026_10', 'receipts_2026_11', 'receipts_2026_12', 'receipts_2027_01'],
      moved: 0,
    });
    expect(await ensureReceiptPartitions(url, { now: NOV_15 })).toEqual({ created: [], moved: 0 });

    await insertReceipt(url, 'r-oct', 1, '2026-10-31T23:59:59.999Z');
    await insertReceipt(url, 'r-nov', 2, '2026-11-01T00:00:00Z');
    await insertReceipt(url, 'r-2020', 3, '2020-02-02T00:00:00Z');
    expect(await receiptPartitionOf(url, 'r-oct')).toBe('receipts_2026_10');
    expect(await receiptPartitionOf(url, 'r-nov')).toBe('receipts_2026_11');
    expect(await receiptPartitionOf(url, 'r-2020')).toBe('receipts_default');
  });

  it("moves a month's receipts out of the default partition into the month's new partition", async () => {
    const { url } = await database();
    await ensureReceiptPartitions(url, { now: NOV_15 });
    await insertReceipt(url, 'old-1', 1, '2025-03-01T00:00:00Z');
    await insertReceipt(url, 'old-2', 2, '2025-03-31T23:59:59Z');
    await insertReceipt(url, 'older', 3, '2024-07-04T00:00:00Z');

    expect(await ensureReceiptPartitions(url, { now: NOV_15 })).toEqual({
      created: ['receipts_2024_07', 'receipts_2025_03'],
      moved: 3,
    });
    expect(await receiptPartitionOf(url, 'old-1')).toBe('receipts_2025_03');
    expect(await receiptPartitionOf(url, 'old-2')).toBe('receipts_2025_03');
    expect(await receiptPartitionOf(url, 'older')).toBe('receipts_2024_07');
    expect(await query(url, 'SELECT id FROM receipts_default')).toEqual([]);
    // The moved partition got the parent's indexes when it was attached.
    const indexes = await query<{ indexdef: string }>(
      url,
      `SELECT indexdef FROM pg_indexes WHERE tablename = 'receipts_2025_03' ORDER BY indexname`,
    );
    expect(indexes.map((index) => index.indexdef.replace(/^.* USING /, ''))).toEqual([
      'gin (capabilities)',
      'btree (gateway, received_at DESC, id DESC)',
      'btree (id, received_at)',
      'gin (policies)',
      'btree (received_at DESC, id DESC)',
      'gin (rules)',
      'gin (tools)',
    ]);
  });

  it('is safe to run from several API replicas at once', async () => {
    const { url } = await database();
    const reports = await Promise.all([1, 2, 3].map(() => ensureReceiptPartitions(url)));
    expect(reports.flatMap((report) => report.created)).toHaveLength(4);
    expect(new Set(reports.flatMap((report) => report.created)).size).toBe(4);
  });

  it('reads only the months a time range covers', async () => {
    const { url } = await database();
    await ensureReceiptPartitions(url, { now: NOV_15 });
    const plan = await query<{ 'QUERY PLAN': string }>(
      url,
      `EXPLAIN SELECT id FROM receipts
        WHERE received_at >= '2026-11-01T00:00:00Z' AND received_at < '2026-11-20T00:00:00Z'`,
    );
    const text = plan.map((row) => row['QUERY PLAN']).join('\n');
    expect(text).toContain('receipts_2026_11');
    expect(text).not.toMatch(/receipts_2026_10|receipts_2026_12|receipts_2027_01|receipts_default/);
  });

  it('rolls back a run that cannot complete, leaving the receipts where they were', async () => {
    const { url } = await database();
    await insertReceipt(url, 'lost-in-default', 1, '2026-11-03T00:00:00Z');
    // A hand-made partition whose bounds overlap the month the run wants to create.
    await query(
      url,
      `CREATE TABLE receipts_by_hand PARTITION OF receipts
         FOR VALUES FROM ('2026-10-20T00:00:00Z') TO ('2026-10-25T00:00:00Z')`,
    );
    await expect(ensureReceiptPartitions(url, { now: NOV_15 })).rejects.toThrow(/overlap/);
    expect(await receiptPartitionOf(url, 'lost-in-default')).toBe('receipts_default');
    expect(await receiptPartitions(url)).toEqual(['receipts_by_hand', 'receipts_default']);
  });
});

describe('the migration that partitions receipts', () => {
  it('keeps every existing receipt, indexes each in receipt_links, and lets them be moved into months', async () => {
    const all = (await readdir(MIGRATIONS_DIR)).filter((entry) => /^\d/.test(entry)).sort();
    const partitioning = all.findIndex((entry) => entry.endsWith('_receipts_partitioned_by_month'));
    expect(partitioning).toBeGreaterThan(0);
    const before = await mkdtemp(join(tmpdir(), 'toolgate-migrations-'));
    dirs.push(before);
    await cp(join(MIGRATIONS_DIR, 'migration_lock.toml'), join(before, 'migration_lock.toml'));
    for (const entry of all.slice(0, partitioning)) {
      await cp(join(MIGRATIONS_DIR, entry), join(before, entry), { recursive: true });
    }
    const { url } = await database({ migrationsDir: before });
    await insertReceipt(url, 'kept-1', 1, '2026-09-09T09:09:09.999Z');
    await insertReceipt(url, 'kept-2', 2, '2026-11-11T11:11:11Z');

    await applyMigrations(url);

    expect(
      await query(url, 'SELECT id, gateway, seq::int, hash FROM receipt_links ORDER BY seq'),
    ).toEqual([
      { id: 'kept-1', gateway: 'gw', seq: 1, hash: 'sha256:kept-1' },
      { id: 'kept-2', gateway: 'gw', seq: 2, hash: 'sha256:kept-2' },
    ]);
    expect(await receiptPartitionOf(url, 'kept-1')).toBe('receipts_default');
    expect(await ensureReceiptPartitions(url, { now: NOV_15 })).toMatchObject({ moved: 2 });
    expect(await receiptPartitionOf(url, 'kept-1')).toBe('receipts_2026_09');
    expect(await receiptPartitionOf(url, 'kept-2')).toBe('receipts_2026_11');
    const [row] = await query<{ received_at: Date }>(
      url,
      `SELECT received_at FROM receipts WHERE id = 'kept-1'`,
    );
    expect(row?.received_at.toISOString()).toBe('2026-09-09T09:09:09.999Z');
  });
});
