import { compactReceipt, type Receipt, receiptHash } from '@toolgate/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectFault } from '../../../../scripts/reliability/figures.ts';
import { startTestApi, type TestApi } from '../testing/test-api.ts';
import { gatewayWithChain as chainFor, verifyAs } from './chain-testing.ts';
import { chainOf } from './receipt-fixtures.ts';

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

const gatewayWithChain = (name: string, count: number) => chainFor(api, name, count);
const verify = (name: string) => verifyAs(api, name);

/** Each tampering below is a fault put into the stored data; detecting it is surviving it. */
const tamper = (name: string) =>
  injectFault('apps/api/src/receipts/chain-verify.test.ts', `stored receipt ${name}`);

describe('chain verification', () => {
  it('accepts an intact chain, read in several pages', async () => {
    const chain = await gatewayWithChain('v-intact', 1205);
    expect(await verify('v-intact')).toEqual({
      gateway: 'v-intact',
      valid: true,
      checked: 1205,
      head: { seq: '1205', id: 'v-intact-1205', hash: chain[1204]?.hash },
    });
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
      field: 'body',
      actual: chain[1002]?.hash,
    });
    expect(result.firstBreak?.expected).toMatch(/^sha256:/);
    expect(result.firstBreak?.expected).not.toBe(chain[1002]?.hash);
    fault.survived();
  });

  it('reports a body replaced with its own hash recomputed, via the stored hash', async () => {
    const chain = await gatewayWithChain('v-rehashed', 5);
    const { hash: _hash, ...rest } = chain[2] as Receipt;
    const forged = chainOf([{ ...rest, model: 'forged' }], rest.prev_hash)[0] as Receipt;
    const fault = tamper('rewritten with its own hash recomputed');
    await db.query('UPDATE receipts SET body = $1 WHERE id = $2', [
      JSON.stringify(forged),
      'v-rehashed-3',
    ]);
    expect((await verify('v-rehashed')).firstBreak).toMatchObject({
      seq: '3',
      id: 'v-rehashed-3',
      reason: 'hash_mismatch',
      field: 'receipts.hash',
      expected: forged.hash,
      actual: chain[2]?.hash,
    });
    fault.survived();
  });

  it('reports a row renumbered to the end at the first moved link', async () => {
    await gatewayWithChain('v-moved', 5);
    const fault = tamper('reordered (renumbered to the end)');
    await db.query(`UPDATE receipts SET seq = 6 WHERE id = 'v-moved-2'`);
    expect(await verify('v-moved')).toMatchObject({
      valid: false,
      checked: 1,
      firstBreak: { seq: '2', id: 'v-moved-2', reason: 'link_mismatch', field: 'seq' },
    });
    fault.survived();
  });

  it('gives the head of an intact chain, and finds the tail cut off against it', async () => {
    const chain = await gatewayWithChain('v-truncated', 8);
    const intact = await verify('v-truncated');
    expect(intact.head).toEqual({ seq: '8', id: 'v-truncated-8', hash: chain[7]?.hash });
    const anchor = { seq: '8', hash: chain[7]?.hash as string };
    expect(await verifyAs(api, 'v-truncated', anchor)).toMatchObject({ valid: true, checked: 8 });

    const fault = tamper('tail deleted');
    for (const table of ['receipts', 'receipt_links']) {
      await db.query(`DELETE FROM ${table} WHERE id IN ('v-truncated-7', 'v-truncated-8')`);
    }
    // What a hash chain cannot see on its own: a shorter chain is still a valid chain.
    expect(await verify('v-truncated')).toMatchObject({ valid: true, checked: 6 });
    expect(await verifyAs(api, 'v-truncated', anchor)).toEqual({
      gateway: 'v-truncated',
      valid: false,
      checked: 0,
      firstBreak: {
        seq: '7',
        id: null,
        reason: 'truncated',
        expected: '8',
        actual: '6',
        message: expect.stringContaining('receipts from seq 7 on were deleted'),
      },
    });
    fault.survived();
  });

  it('finds the tail cut off against the chain head the gateway reported in its status', async () => {
    const chain = await gatewayWithChain('v-reported', 5);
    const newest = chain[4] as Receipt;
    const receiptChain = {
      head: { id: newest.id, hash: newest.hash },
      acknowledgedAt: '2026-05-01T00:00:06.000Z',
    };
    await api.operator.call('gateways.replaceStatus', {
      params: { name: 'v-reported' },
      body: { status: { conditions: [], receiptChain } },
    });
    expect(await verify('v-reported')).toMatchObject({ valid: true, checked: 5 });

    const fault = tamper('tail deleted behind the gateway');
    for (const table of ['receipts', 'receipt_links']) {
      await db.query(`DELETE FROM ${table} WHERE id IN ('v-reported-4', 'v-reported-5')`);
    }
    // No anchor given: the gateway's own report of what the API acknowledged is the witness.
    expect(await verify('v-reported')).toEqual({
      gateway: 'v-reported',
      valid: false,
      checked: 3,
      firstBreak: {
        seq: '4',
        id: null,
        reason: 'truncated',
        field: 'Gateway.status.receiptChain',
        expected: newest.hash,
        actual: '3',
        message: expect.stringContaining(`receipt ${newest.id}`),
      },
    });
    fault.survived();
  });

  it('finds the newest receipt rewritten with its hashes recomputed only against an anchor', async () => {
    const chain = await gatewayWithChain('v-head-rewritten', 4);
    const { hash: _hash, ...rest } = compactReceipt(chain[3] as Receipt).stored;
    const forged = { ...rest, model: 'forged' };
    const hash = receiptHash(forged);
    const fault = tamper('newest receipt rewritten');
    await db.query('UPDATE receipts SET body = $1, hash = $2, model = $3 WHERE id = $4', [
      JSON.stringify({ ...forged, hash }),
      hash,
      'forged',
      'v-head-rewritten-4',
    ]);
    await db.query('UPDATE receipt_links SET hash = $1 WHERE id = $2', [
      hash,
      'v-head-rewritten-4',
    ]);
    expect(await verify('v-head-rewritten')).toMatchObject({ valid: true, checked: 4 });
    const anchored = await verifyAs(api, 'v-head-rewritten', {
      seq: '4',
      hash: chain[3]?.hash as string,
    });
    expect(anchored.firstBreak).toMatchObject({
      seq: '4',
      id: 'v-head-rewritten-4',
      reason: 'anchor_mismatch',
      expected: chain[3]?.hash,
      actual: hash,
    });
    fault.survived();
  });

  it('refuses an anchor with half of it or a malformed hash, naming the field', async () => {
    const path = '/apis/toolgate.dev/v1/gateways/v-intact/receipts/verify';
    for (const [query, field] of [
      ['anchorSeq=3', 'anchorHash'],
      [`anchorSeq=0&anchorHash=sha256:${'a'.repeat(64)}`, 'anchorSeq'],
      ['anchorSeq=3&anchorHash=md5:abc', 'anchorHash'],
    ] as const) {
      const response = await api.fetch(`${path}?${query}`, { token: api.operatorToken });
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toContain(field);
    }
  });
});
