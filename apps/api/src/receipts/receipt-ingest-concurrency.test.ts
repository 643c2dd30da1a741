import { ApiError } from '@toolgate/contract';
import { compactReceipt, type Receipt } from '@toolgate/core';
import { until } from '@toolgate/core/testing';
import { describe, expect, it } from 'vitest';
import { ingestTestStack } from './ingest-testing.ts';
import { receiptColumns } from './receipt-columns.ts';
import { chainOf } from './receipt-fixtures.ts';
import { ReceiptIdTakenError, ReceiptsRepository } from './receipts.repository.ts';
import { call } from './receipts-testing.ts';

const { stack, gateway, bodies, ingest, rowCount, whileToolSetRowHeld, storedChain } =
  ingestTestStack();

describe('receipt ingest: other gateways, concurrency and faults', () => {
  it("refuses another gateway's token with 403 and writes nothing", async () => {
    await gateway('gw-owner');
    const intruder = await gateway('gw-intruder');
    const chain = chainOf(bodies('gw-owner', 1));
    const error = await intruder
      .call('receipts.ingest', { params: { name: 'gw-owner' }, body: { receipts: chain } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).httpStatus).toBe(403);
    expect(await rowCount('gw-owner')).toBe(0);
  });

  it('rolls back a batch whose id another gateway stored concurrently', async () => {
    const client = await gateway('gw-taken');
    const [stored] = chainOf(bodies('gw-taken', 1));
    await ingest(client, 'gw-taken', [stored]);
    // What a race with another gateway's batch leaves: the id check passed, the insert fails.
    const repository = stack.api.app.get(ReceiptsRepository);
    const [row] = chainOf(bodies('gw-taken', 1, 1), stored?.hash);
    const attempt = repository.appendToChain('gw-racer', [], new Map(), () => ({
      rows: [
        {
          ...receiptColumns(row as Receipt),
          id: 'gw-taken-r1',
          seq: 1n,
          body: '{}',
          toolSetHash: null,
        },
        {
          ...receiptColumns(stored as Receipt),
          gateway: 'gw-racer',
          seq: 2n,
          body: '{}',
          toolSetHash: null,
        },
      ],
      result: undefined,
    }));
    await expect(attempt).rejects.toBeInstanceOf(ReceiptIdTakenError);
    expect(await rowCount('gw-racer')).toBe(0);
    expect(await rowCount('gw-taken')).toBe(1);
  });

  it('rolls back every chunk of a batch when a later chunk fails', async () => {
    const client = await gateway('gw-chunked');
    const [stored] = chainOf(bodies('gw-chunked', 1));
    await ingest(client, 'gw-chunked', [stored]);
    const repository = stack.api.app.get(ReceiptsRepository);
    const rows = chainOf(bodies('gw-chunked', 3, 1), stored?.hash).map((receipt, i) => ({
      ...receiptColumns(receipt as Receipt),
      gateway: 'gw-chunk-racer',
      seq: BigInt(i + 1),
      body: '{}',
      toolSetHash: null,
    }));
    let decided = 0;
    // The first chunk is written while the second is decided; the second holds a taken id.
    const attempt = repository.appendToChain('gw-chunk-racer', [], new Map(), function* () {
      yield { rows: rows.slice(0, 2) };
      decided++;
      yield { rows: [{ ...(rows[2] as (typeof rows)[number]), id: (stored as Receipt).id }] };
      decided++;
      return undefined;
    });
    await expect(attempt).rejects.toBeInstanceOf(ReceiptIdTakenError);
    expect(decided).toBe(2);
    expect(await rowCount('gw-chunk-racer')).toBe(0);
    expect(await rowCount('gw-chunked')).toBe(1);
  });

  it('loses a batch whose connection dies mid-transaction whole, and the next one lands', async () => {
    const client = await gateway('gw-cut');
    const chain = chainOf(bodies('gw-cut', 3, 0, ['cut_tool']));
    const toolSetHash = compactReceipt(chain[0] as Receipt).stored.tool_set_hash;
    // Another session holds the batch's tool set row (uncommitted), so the batch waits inside
    // its transaction, after taking the chain lock…
    await whileToolSetRowHeld(toolSetHash, async (other) => {
      const cut = ingest(client, 'gw-cut', chain).catch((error: unknown) => error);
      // …where its connection is killed, as a database restart would.
      await until(async () => {
        const { rows } = await stack.db.query(
          `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        return rows[0].n > 0;
      });
      const error = await cut;
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).httpStatus).toBeGreaterThanOrEqual(500);
      await other.query('ROLLBACK');
    });
    expect(await rowCount('gw-cut')).toBe(0);
    const { rows } = await stack.db.query(
      'SELECT count(*)::int AS n FROM tool_sets WHERE hash = $1',
      [toolSetHash],
    );
    expect(rows[0].n).toBe(0);
    // The dead connection left the pool: the gateway's retry is stored, the chain intact.
    const retried = await ingest(client, 'gw-cut', chain);
    expect(retried.map((r) => r.result)).toEqual(['created', 'created', 'created']);
    const verification = await call(stack.api.operator, 'receipts.verify', {
      params: { name: 'gw-cut' },
    });
    expect(verification).toMatchObject({ gateway: 'gw-cut', valid: true, checked: 3 });
  });

  it('validates the batch envelope', async () => {
    const client = await gateway('gw-envelope');
    const error = await client
      .call('receipts.ingest', { params: { name: 'gw-envelope' }, body: { receipts: [] } })
      .catch((e: unknown) => e);
    expect((error as ApiError).httpStatus).toBe(422);
    expect((error as ApiError).status.details?.causes?.[0]?.field).toBe('receipts');
  });

  it('serializes concurrent batches of one gateway: both land, the chain stays whole', async () => {
    const client = await gateway('gw-concurrent');
    const chain = chainOf(bodies('gw-concurrent', 60));
    const first = chain.slice(0, 30);
    const second = chain.slice(30);
    // The second batch can only land after the first; a gateway resends what was rejected.
    const outcomes = await Promise.all([
      ingest(client, 'gw-concurrent', first),
      ingest(client, 'gw-concurrent', second),
      ingest(client, 'gw-concurrent', first),
    ]);
    const created = outcomes.flat().filter((r) => r.result === 'created').length;
    expect(created).toBeGreaterThanOrEqual(30);
    await ingest(client, 'gw-concurrent', first);
    await ingest(client, 'gw-concurrent', second);
    const stored = await storedChain('gw-concurrent');
    expect(stored.map((r) => r.id)).toEqual(chain.map((r) => r.id));
    expect(stored.map((r) => r.seq)).toEqual(chain.map((_, i) => i + 1));
    const verification = await call(stack.api.operator, 'receipts.verify', {
      params: { name: 'gw-concurrent' },
    });
    expect(verification).toMatchObject({ gateway: 'gw-concurrent', valid: true, checked: 60 });
  });

  it('serializes concurrent batches that each continue the chain', async () => {
    const client = await gateway('gw-race');
    const chain = chainOf(bodies('gw-race', 40));
    // Ten identical batches at once: exactly one stores them, the others see duplicates.
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () => ingest(client, 'gw-race', chain)),
    );
    const created = outcomes.filter((results) => results.every((r) => r.result === 'created'));
    const duplicates = outcomes.filter((results) => results.every((r) => r.result === 'duplicate'));
    expect(created).toHaveLength(1);
    expect(duplicates).toHaveLength(9);
    expect(await rowCount('gw-race')).toBe(40);
  });
});
