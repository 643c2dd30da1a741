import { setTimeout as sleep } from 'node:timers/promises';
import { type ApiClient, ApiError } from '@toolgate/contract';
import { compactReceipt, type Receipt } from '@toolgate/core';
import { until } from '@toolgate/core/testing';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { PrismaService } from '../database/prisma.service.ts';
import { HELD, type Held, hold, ingestTestStack } from './ingest-testing.ts';
import { receiptColumns } from './receipt-columns.ts';
import { chainOf } from './receipt-fixtures.ts';
import { ReceiptIdTakenError, ReceiptsRepository } from './receipts.repository.ts';
import { call } from './receipts-testing.ts';

const { stack, gateway, bodies, ingest, rowCount, whileHeld, rowLockWaits, storedChain } =
  ingestTestStack();

/** Ends every backend of the API's database that waits for a lock; how many. */
async function terminateLockWaiters(): Promise<number> {
  const { rows } = await stack.db.query(
    `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return rows[0].n;
}

/** Transactions holding a chain lock with no statement running (waiting on the API). */
async function idleChainTransactions(): Promise<number> {
  const { rows } = await stack.db.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity a
     JOIN pg_locks l ON l.pid = a.pid AND l.locktype = 'advisory' AND l.granted
     WHERE a.datname = current_database() AND a.state = 'idle in transaction'`,
  );
  return rows[0].n;
}

async function toolSetRows(hash: string): Promise<number> {
  const { rows } = await stack.db.query(
    'SELECT count(*)::int AS n FROM tool_sets WHERE hash = $1',
    [hash],
  );
  return rows[0].n;
}

/** A registered gateway and a chain of `count` receipts with one tool set, new to the API. */
async function gatewayWithChain(name: string, count: number) {
  const client = await gateway(name);
  const chain = chainOf(bodies(name, count, 0, [`${name}-tool`]));
  return { client, chain, toolSetHash: compactReceipt(chain[0] as Receipt).stored.tool_set_hash };
}

/**
 * Ingests `chain` while another session holds `held`, kills the backend left waiting for a lock
 * (the batch's, or one it waits for), and expects the batch to fail with a server error.
 */
async function ingestCut(client: ApiClient, name: string, chain: Receipt[], held: Held) {
  await whileHeld(held, async (other) => {
    const cut = ingest(client, name, chain).catch((error: unknown) => error);
    await until(async () => (await terminateLockWaiters()) > 0);
    const error = await cut;
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).httpStatus).toBeGreaterThanOrEqual(500);
    await other.query('ROLLBACK');
  });
}

/** The gateway's retry of a lost batch: every receipt created, the chain intact. */
async function expectRetryLands(client: ApiClient, name: string, chain: Receipt[]) {
  const retried = await ingest(client, name, chain);
  expect(retried.map((r) => r.result)).toEqual(chain.map(() => 'created'));
  const verification = await call(stack.api.operator, 'receipts.verify', { params: { name } });
  expect(verification).toMatchObject({ gateway: name, valid: true, checked: chain.length });
}

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
    const { client, chain, toolSetHash } = await gatewayWithChain('gw-cut', 3);
    // Another session holds the gateway's chain lock, so the batch waits inside its
    // transaction, where its connection is killed, as a database restart would.
    await ingestCut(client, 'gw-cut', chain, HELD.chainLock('gw-cut'));
    expect(await rowCount('gw-cut')).toBe(0);
    // The dead connection left the pool: the gateway's retry is stored, the chain intact.
    await expectRetryLands(client, 'gw-cut', chain);
    // Its tool set was stored once, by the first attempt's own statement or by the retry's.
    expect(await toolSetRows(toolSetHash)).toBe(1);
  });

  it("loses a batch whose tool sets' connection dies whole, and the next one lands", async () => {
    const { client, chain, toolSetHash } = await gatewayWithChain('gw-cut-sets', 3);
    // Another session holds the batch's tool set row (uncommitted), so the statement storing
    // the batch's tool sets waits on it, while the batch's transaction waits for that statement;
    // that statement's connection is killed.
    await ingestCut(client, 'gw-cut-sets', chain, HELD.toolSetRow(toolSetHash));
    // No receipt without its tool set: the transaction did not commit.
    expect(await rowCount('gw-cut-sets')).toBe(0);
    expect(await toolSetRows(toolSetHash)).toBe(0);
    await expectRetryLands(client, 'gw-cut-sets', chain);
    expect(await toolSetRows(toolSetHash)).toBe(1);
  });

  it('commits a batch only once its tool sets are stored', async () => {
    const { client, chain, toolSetHash } = await gatewayWithChain('gw-sets-first', 3);
    await whileHeld(HELD.toolSetRow(toolSetHash), async (other) => {
      let settled = false;
      const ingested = ingest(client, 'gw-sets-first', chain).finally(() => {
        settled = true;
      });
      // The tool sets' statement waits on the held row; the transaction has written its
      // receipts and waits, holding the chain lock, with nothing left to run.
      await until(async () => (await rowLockWaits()) > 0);
      await until(async () => (await idleChainTransactions()) > 0);
      await sleep(300);
      expect(settled).toBe(false);
      expect(await rowCount('gw-sets-first')).toBe(0);
      await other.query('ROLLBACK');
      expect((await ingested).map((r) => r.result)).toEqual(['created', 'created', 'created']);
    });
    expect(await rowCount('gw-sets-first')).toBe(3);
    expect(await toolSetRows(toolSetHash)).toBe(1);
  });

  it('fails a batch whose tool sets wait on its own chain lock, instead of hanging', async () => {
    const { client, chain, toolSetHash } = await gatewayWithChain('gw-cycle', 2);
    const repository = stack.api.app.get(ReceiptsRepository);
    const waitMs = repository.toolSetsWaitMs;
    repository.toolSetsWaitMs = 500;
    try {
      // The session holding the batch's tool set row then waits for the gateway's chain lock,
      // which the batch's transaction holds while it waits for its tool sets: a cycle through
      // the API, where PostgreSQL's deadlock detector cannot see it. Nothing in the API writes
      // tool sets and takes a chain lock in one transaction; the bound is for what might.
      await whileHeld(HELD.toolSetRow(toolSetHash), async (other) => {
        const failed = ingest(client, 'gw-cycle', chain).catch((error: unknown) => error);
        await until(async () => (await rowLockWaits()) > 0);
        await until(async () => (await idleChainTransactions()) > 0);
        await hold(other, HELD.chainLock('gw-cycle'));
        const error = await failed;
        expect(error).toBeInstanceOf(ApiError);
        expect((error as ApiError).httpStatus).toBeGreaterThanOrEqual(500);
        await other.query('ROLLBACK');
      });
    } finally {
      repository.toolSetsWaitMs = waitMs;
    }
    expect(await rowCount('gw-cycle')).toBe(0);
    await expectRetryLands(client, 'gw-cycle', chain);
    expect(await toolSetRows(toolSetHash)).toBe(1);
  });

  it('stores batches with tool sets on a pool of one connection (the sets never wait on it)', async () => {
    const names = ['gw-one-a', 'gw-one-b', 'gw-one-c'];
    // The API's own repository code on a pool of one: a tool sets' statement that asked for a
    // connection after its transaction took the only one would wait for it forever.
    const pool = new pg.Pool({ connectionString: stack.api.database.url, max: 1 });
    const repository = new ReceiptsRepository({ pool } as unknown as PrismaService);
    repository.toolSetsWaitMs = 5_000;
    try {
      await Promise.all(
        names.map((name, i) => {
          const [receipt] = chainOf(bodies(name, 1, 0, [`one_tool_${i}`]));
          const hash = `sha256:${'0'.repeat(63)}${i}`;
          return repository.appendToChain(name, [], new Map([[hash, '{"tools":[]}']]), () => ({
            rows: [
              { ...receiptColumns(receipt as Receipt), seq: 1n, body: '{}', toolSetHash: hash },
            ],
            result: undefined,
          }));
        }),
      );
    } finally {
      await pool.end();
    }
    for (const name of names) expect(await rowCount(name)).toBe(1);
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
