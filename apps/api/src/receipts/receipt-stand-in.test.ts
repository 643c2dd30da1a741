import {
  type ApiClient,
  RECEIPT_STAND_IN_SCHEMA,
  type ReceiptIngestResult,
  type ReceiptStandIn,
} from '@toolgate/contract';
import { compactReceipt, type Receipt, type ToolSet } from '@toolgate/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../testing/test-api.ts';
import { verifyAs } from './chain-testing.ts';
import { chainOf, fixtureReceiptBody } from './receipt-fixtures.ts';
import { call, registerGateway } from './receipts-testing.ts';

/**
 * Stand-ins (docs/receipts.md, "Quarantined receipts"): the link of a receipt the API refused for
 * good, shipped by the gateway in the receipt's place so the chain goes on past it.
 */

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

function receipts(gateway: string, count: number): Receipt[] {
  const bodies = Array.from({ length: count }, (_, i) =>
    fixtureReceiptBody({
      id: `${gateway}-r${i}`,
      gateway,
      receivedAt: new Date(Date.UTC(2026, 0, 2, 3, 4, 5) + i * 1000).toISOString(),
      tools: ['search_code', 'read_file'],
      calls: ['read_file'],
    }),
  );
  return chainOf(bodies);
}

function standInFor(receipt: Receipt, overrides: Partial<ReceiptStandIn> = {}): ReceiptStandIn {
  return {
    schema: RECEIPT_STAND_IN_SCHEMA,
    id: receipt.id,
    gateway: receipt.gateway,
    received_at: receipt.timestamps.received_at,
    prev_hash: receipt.prev_hash,
    hash: receipt.hash,
    held: {
      reason: 'RequestEntityTooLarge',
      message: 'request body is too large',
      bytes: 9_437_300,
      quarantined_at: '2026-01-02T03:05:00.000Z',
    },
    ...overrides,
  };
}

/** Receipts in their stored form (stand-ins as they are), with the tool sets they reference. */
async function ingest(client: ApiClient, name: string, items: unknown[]) {
  const toolSets: Record<string, ToolSet> = {};
  const stored = items.map((item) => {
    if ((item as { schema?: string }).schema === RECEIPT_STAND_IN_SCHEMA) return item;
    const { stored, toolSet } = compactReceipt(item as Receipt);
    toolSets[stored.tool_set_hash] = toolSet;
    return stored;
  });
  const { results } = await call(client, 'receipts.ingest', {
    params: { name },
    body: { receipts: stored, tool_sets: toolSets },
  });
  return results;
}

const outcomes = (results: ReceiptIngestResult[]) =>
  results.map((r) => (r.result === 'rejected' ? `rejected:${r.reason}` : r.result));

describe('receipt stand-ins', () => {
  it('links a stand-in in place of the refused receipt, and the chain goes on after it', async () => {
    const name = 'stand-in-chain';
    const client = await registerGateway(api, name);
    const [a, b, c, d] = receipts(name, 4) as [Receipt, Receipt, Receipt, Receipt];

    // Before stand-ins: the receipt after a refused one cannot continue the chain.
    expect(outcomes(await ingest(client, name, [a]))).toEqual(['created']);
    expect(outcomes(await ingest(client, name, [c]))).toEqual(['rejected:ChainBroken']);

    expect(outcomes(await ingest(client, name, [standInFor(b), c, d]))).toEqual([
      'created',
      'created',
      'created',
    ]);
    const { rows } = await db.query(
      `SELECT id, seq::int, hash, stand_in FROM receipt_links WHERE gateway = $1 ORDER BY seq`,
      [name],
    );
    expect(rows.map((row) => [row.id, row.seq, row.hash])).toEqual([
      [a.id, 1, a.hash],
      [b.id, 2, b.hash],
      [c.id, 3, c.hash],
      [d.id, 4, d.hash],
    ]);
    expect(rows[1].stand_in).toEqual(standInFor(b));
    expect(rows.filter((row) => row.stand_in !== null)).toHaveLength(1);
    // No receipt row: the body is on the gateway, and listings show only stored receipts.
    const stored = await db.query('SELECT id FROM receipts WHERE gateway = $1 ORDER BY seq', [
      name,
    ]);
    expect(stored.rows.map((row) => row.id)).toEqual([a.id, c.id, d.id]);

    // Retries are harmless: the stand-in again, or the receipt itself (same id and hash).
    expect(outcomes(await ingest(client, name, [standInFor(b), b]))).toEqual([
      'duplicate',
      'duplicate',
    ]);

    // Verify walks past the stand-in, and says it is held on the gateway, not verified here.
    const verified = await verifyAs(api, name);
    expect(verified).toMatchObject({
      valid: true,
      checked: 4,
      held: { count: 1, links: [{ seq: '2', id: b.id, reason: 'RequestEntityTooLarge' }] },
    });
    // A stand-in edited to point elsewhere is a finding at itself, not a silent gap.
    await db.query(
      `UPDATE receipt_links SET stand_in = jsonb_set(stand_in, '{prev_hash}', to_jsonb($2::text))
       WHERE id = $1`,
      [b.id, d.hash],
    );
    expect((await verifyAs(api, name)).firstBreak).toMatchObject({
      seq: '2',
      id: b.id,
      reason: 'stand_in_mismatch',
      field: 'prev_hash',
    });
  });

  it('checks a stand-in against the chain like a receipt', async () => {
    const name = 'stand-in-checked';
    const client = await registerGateway(api, name);
    const [a, b, c] = receipts(name, 3) as [Receipt, Receipt, Receipt];
    expect(outcomes(await ingest(client, name, [a]))).toEqual(['created']);

    // Not the chain's next link: refused, like a receipt that does not continue it.
    expect(outcomes(await ingest(client, name, [standInFor(c)]))).toEqual(['rejected:ChainBroken']);
    // Another id's hash under a stored id.
    expect(
      outcomes(await ingest(client, name, [standInFor(b, { id: a.id, prev_hash: null })])),
    ).toEqual(['rejected:Conflict']);
    const invalid = [
      standInFor(b, { gateway: 'someone-else' }),
      standInFor(b, { hash: 'sha256:nope' }),
      { ...standInFor(b), body: { model: 'x' } },
      standInFor(b, {
        held: { reason: 'not camel', bytes: 1, quarantined_at: '2026-01-01T00:00:00Z' },
      }),
      standInFor(b, {
        held: { reason: 'Invalid', message: 'x'.repeat(1025), bytes: 1, quarantined_at: 'now' },
      }),
      standInFor(b, {
        held: {
          reason: 'Invalid',
          message: 'nul \u0000',
          bytes: 1,
          quarantined_at: '2026-01-01T00:00:00Z',
        },
      }),
    ];
    const results = await ingest(client, name, invalid);
    expect(outcomes(results)).toEqual(invalid.map(() => 'rejected:Invalid'));
    expect(results.map((r) => r.message)).toEqual([
      expect.stringContaining('gateway: must be "stand-in-checked"'),
      expect.stringContaining('hash:'),
      expect.stringContaining('body'),
      expect.stringContaining('held.reason'),
      expect.stringMatching(
        /held\.message.*held\.quarantined_at|held\.quarantined_at.*held\.message/s,
      ),
      expect.stringContaining('U+0000'),
    ]);
    const { rows } = await db.query(
      'SELECT count(*)::int AS n FROM receipt_links WHERE gateway = $1',
      [name],
    );
    expect(rows[0].n).toBe(1);
  });
});
