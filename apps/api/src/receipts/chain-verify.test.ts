import type { ApiClient } from '@toolgate/contract';
import { ingestBatchOf, type Receipt } from '@toolgate/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectFault } from '../../../../scripts/reliability/figures.ts';
import { startTestApi, type TestApi } from '../testing/test-api.ts';
import { chainOf, fixtureReceiptBody } from './receipt-fixtures.ts';
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

/** A gateway with `count` receipts ingested (in batches of at most 1000). */
async function gatewayWithChain(name: string, count: number): Promise<Receipt[]> {
  const client = await registerGateway(api, name);
  const chain = chainOf(
    Array.from({ length: count }, (_, i) =>
      fixtureReceiptBody({
        id: `${name}-${i + 1}`,
        gateway: name,
        receivedAt: new Date(Date.UTC(2026, 4, 1) + i * 1000).toISOString(),
        calls: ['read_file'],
      }),
    ),
  );
  await ingestAll(client, name, chain);
  return chain;
}

async function ingestAll(client: ApiClient, name: string, chain: Receipt[]) {
  for (let i = 0; i < chain.length; i += 1000) {
    const { results } = await call(client, 'receipts.ingest', {
      params: { name },
      body: ingestBatchOf(chain.slice(i, i + 1000)),
    });
    expect(results.every((r) => r.result === 'created')).toBe(true);
  }
}

const verify = (name: string) => call(api.operator, 'receipts.verify', { params: { name } });

/** Each tampering below is a fault put into the stored data; detecting it is surviving it. */
const tamper = (name: string) =>
  injectFault('apps/api/src/receipts/chain-verify.test.ts', `stored receipt ${name}`);

describe('chain verification', () => {
  it('accepts an intact chain, read in several pages', async () => {
    await gatewayWithChain('v-intact', 1205);
    expect(await verify('v-intact')).toEqual({ gateway: 'v-intact', valid: true, checked: 1205 });
    expect(await verify('v-nothing-yet')).toEqual({
      gateway: 'v-nothing-yet',
      valid: true,
      checked: 0,
    });
  });

  it('reports an altered body at that receipt (past the first page)', async () => {
    const chain = await gatewayWithChain('v-altered', 1010);
    const fault = tamper('altered');
    await db.query(
      `UPDATE receipts SET body = jsonb_set(body, '{outcome,status}', '500') WHERE id = $1`,
      ['v-altered-1003'],
    );
    const result = await verify('v-altered');
    expect(result.valid).toBe(false);
    expect(result.checked).toBe(1002);
    expect(result.firstBreak).toMatchObject({
      seq: '1003',
      id: 'v-altered-1003',
      reason: 'hash_mismatch',
      actual: chain[1002]?.hash,
    });
    expect(result.firstBreak?.expected).toMatch(/^sha256:/);
    expect(result.firstBreak?.expected).not.toBe(chain[1002]?.hash);
    fault.survived();
  });

  it('reports a rewritten body whose own hash was recomputed, via the stored hash', async () => {
    const chain = await gatewayWithChain('v-rehashed', 5);
    const { hash: _hash, ...rest } = chain[2] as Receipt;
    const forged = chainOf([{ ...rest, model: 'forged' }], rest.prev_hash)[0] as Receipt;
    const fault = tamper('rewritten with its own hash recomputed');
    await db.query('UPDATE receipts SET body = $1 WHERE id = $2', [
      JSON.stringify(forged),
      'v-rehashed-3',
    ]);
    expect((await verify('v-rehashed')).firstBreak).toEqual({
      seq: '3',
      id: 'v-rehashed-3',
      reason: 'hash_mismatch',
      expected: forged.hash,
      actual: chain[2]?.hash,
    });
    fault.survived();
  });

  it('reports a deleted receipt as a seq gap at the receipt after it', async () => {
    await gatewayWithChain('v-deleted', 6);
    const fault = tamper('deleted');
    await db.query('DELETE FROM receipts WHERE id = $1', ['v-deleted-4']);
    expect(await verify('v-deleted')).toEqual({
      gateway: 'v-deleted',
      valid: false,
      checked: 3,
      firstBreak: { seq: '5', id: 'v-deleted-5', reason: 'seq_gap', expected: '4', actual: '5' },
    });
    fault.survived();
  });

  it('reports swapped bodies as a broken prev link at the first of them', async () => {
    const chain = await gatewayWithChain('v-swapped', 6);
    const fault = tamper('reordered (two bodies swapped)');
    await db.query(
      `UPDATE receipts r SET body = o.body FROM receipts o
       WHERE (r.id, o.id) IN (('v-swapped-3', 'v-swapped-4'), ('v-swapped-4', 'v-swapped-3'))`,
    );
    expect((await verify('v-swapped')).firstBreak).toEqual({
      seq: '3',
      id: 'v-swapped-3',
      reason: 'prev_hash_mismatch',
      expected: chain[1]?.hash,
      actual: chain[2]?.hash,
    });
    fault.survived();
  });

  it('reports a renumbered chain (a row moved to the end) at the first moved link', async () => {
    await gatewayWithChain('v-moved', 5);
    const fault = tamper('reordered (renumbered to the end)');
    await db.query(`UPDATE receipts SET seq = 6 WHERE id = 'v-moved-2'`);
    expect((await verify('v-moved')).firstBreak).toMatchObject({
      seq: '3',
      id: 'v-moved-3',
      reason: 'seq_gap',
    });
    fault.survived();
  });
});
