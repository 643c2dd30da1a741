import { ingestBatchOf } from '@toolgate/core';
import { partitionName } from '@toolgate/db';
import { receiptPartitionOf, receiptPartitions } from '@toolgate/db/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../testing/test-api.ts';
import { chainOf, fixtureReceiptBody } from './receipt-fixtures.ts';
import { combinePartitionStats, type PartitionStatsRow } from './receipt-list.repository.ts';
import { ReceiptPartitionsService } from './receipt-partitions.service.ts';
import { call, registerGateway } from './receipts-testing.ts';

let api: TestApi;
let db: pg.Client;
beforeAll(async () => {
  api = await startTestApi();
  db = new pg.Client({ connectionString: api.database.url });
  await db.connect();
});
afterAll(async () => {
  await db.end();
  await api.close();
});

describe('receipts partitioned by month', () => {
  it('has this month and the next ready as soon as the API is up', async () => {
    const now = new Date();
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    expect(await receiptPartitions(api.database.url)).toEqual(
      expect.arrayContaining([partitionName(now), partitionName(next), 'receipts_default']),
    );
  });

  it('ingests, deduplicates, serves and verifies a chain spread over months, before and after its receipts move out of the default partition', async () => {
    const client = await registerGateway(api, 'gw-months');
    const times = [
      '2024-01-15T10:00:00.000Z', // no partition: the default one
      new Date().toISOString(), // this month's partition
      '2031-06-01T00:00:00.000Z', // far ahead: the default one
    ];
    const chain = chainOf(
      times.map((receivedAt, i) =>
        fixtureReceiptBody({ id: `gw-months-${i}`, gateway: 'gw-months', receivedAt }),
      ),
    );
    const ingest = async () =>
      (
        await call(client, 'receipts.ingest', {
          params: { name: 'gw-months' },
          body: ingestBatchOf(chain),
        })
      ).results.map((result) => result.result);

    expect(await ingest()).toEqual(['created', 'created', 'created']);
    expect(await receiptPartitionOf(api.database.url, 'gw-months-0')).toBe('receipts_default');
    expect(await receiptPartitionOf(api.database.url, 'gw-months-1')).toBe(
      partitionName(new Date()),
    );
    expect(await receiptPartitionOf(api.database.url, 'gw-months-2')).toBe('receipts_default');

    const served = async () => {
      for (const [i, receipt] of chain.entries()) {
        const one = await call(api.operator, 'receipts.get', { params: { id: receipt.id } });
        expect(one).toEqual({ seq: String(i + 1), receipt });
      }
      expect(
        await call(api.operator, 'receipts.verify', { params: { name: 'gw-months' } }),
      ).toMatchObject({ gateway: 'gw-months', valid: true, checked: 3 });
      const { items } = await call(api.operator, 'receipts.list', {
        query: { gateway: 'gw-months', since: '2031-01-01T00:00:00Z' },
      });
      expect(items.map((item) => item.id)).toEqual(['gw-months-2']);
    };
    await served();

    const report = await api.app.get(ReceiptPartitionsService).run();
    expect(report?.created).toEqual(['receipts_2024_01', 'receipts_2031_06']);
    expect(report?.moved).toBe(2);
    expect(await receiptPartitionOf(api.database.url, 'gw-months-0')).toBe('receipts_2024_01');
    expect(await receiptPartitionOf(api.database.url, 'gw-months-2')).toBe('receipts_2031_06');

    await served();
    // A retried batch is recognised wherever its receipts now live, and stored once.
    expect(await ingest()).toEqual(['duplicate', 'duplicate', 'duplicate']);
    const { rows } = await db.query(
      `SELECT (SELECT count(*)::int FROM receipts WHERE gateway = 'gw-months') AS receipts,
              (SELECT count(*)::int FROM receipt_links WHERE gateway = 'gw-months') AS links`,
    );
    expect(rows[0]).toEqual({ receipts: 3, links: 3 });
  });

  it('refuses, in the database, a second receipt with a stored id or a taken seq', async () => {
    const client = await registerGateway(api, 'gw-keys');
    const [receipt] = chainOf([
      fixtureReceiptBody({
        id: 'gw-keys-0',
        gateway: 'gw-keys',
        receivedAt: '2026-03-01T00:00:00Z',
      }),
    ]);
    await call(client, 'receipts.ingest', {
      params: { name: 'gw-keys' },
      body: ingestBatchOf([receipt as never]),
    });
    // Same id, another month (another partition): only receipt_links can tell.
    await expect(
      db.query(
        `INSERT INTO receipt_links (id, gateway, seq, received_at, hash)
         VALUES ('gw-keys-0', 'other', 1, '2026-07-01T00:00:00Z', 'sha256:x')`,
      ),
    ).rejects.toThrow(/receipt_links_pkey/);
    await expect(
      db.query(
        `INSERT INTO receipt_links (id, gateway, seq, received_at, hash)
         VALUES ('gw-keys-other', 'gw-keys', 1, '2026-07-01T00:00:00Z', 'sha256:x')`,
      ),
    ).rejects.toThrow(/receipt_links_gateway_seq_key/);
  });
});

describe('list statistics combined from partitions', () => {
  const row = (
    partition: string,
    rows: number,
    column: string | null,
    elements: string[] = [],
    frequencies: number[] = [],
  ): PartitionStatsRow => ({ partition, rows, column, elements, frequencies });

  it('weights each partition by its rows; an element a partition does not list counts 0 there', () => {
    const stats = combinePartitionStats([
      // 300 rows: read_file in 50%, search in 10%; then min, max, null fraction.
      row('receipts_2026_10', 300, 'tools', ['read_file', 'search'], [0.5, 0.1, 0.1, 0.5, 0]),
      row('receipts_2026_10', 300, 'rules', [], []),
      // 100 rows: read_file in 90%.
      row('receipts_2026_11', 100, 'tools', ['read_file'], [0.9, 0.9, 0.9, 0]),
      // Analyzed, no statistics for the array columns.
      row('receipts_default', 0, null),
    ]);
    expect(stats?.rows).toBe(400);
    const tools = stats?.columns.get('tools');
    expect(tools?.frequencies.get('read_file')).toBeCloseTo((0.5 * 300 + 0.9 * 100) / 400);
    expect(tools?.frequencies.get('search')).toBeCloseTo((0.1 * 300) / 400);
    expect(tools?.floor).toBeCloseTo((0.1 * 300 + 0.9 * 100) / 400);
    // No elements kept: anything is rarer than 1 in 1000 there.
    expect(stats?.columns.get('rules')?.floor).toBeCloseTo((0.001 * 300) / 400);
    expect(stats?.columns.has('policies')).toBe(false);
  });

  it('has none before any partition was analyzed', () => {
    expect(combinePartitionStats([])).toBeUndefined();
  });
});
