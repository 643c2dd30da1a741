import { compactReceipt, type Receipt, receiptHash } from '@toolgate/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../../../../scripts/reliability/figures.ts';
import type { TAMPER_KINDS } from '../../../../scripts/reliability/trust-figures.ts';
import { startTestApi, type TestApi } from '../testing/test-api.ts';
import { gatewayWithChain, verifyAs } from './chain-testing.ts';
import { call } from './receipts-testing.ts';

/**
 * Tampering with stored receipts the way someone with database access would (direct SQL), each
 * kind detected by `GET …/receipts/verify` over HTTP and located at the first altered receipt.
 * Every case records `tamper: {kind, detected, located}` for `pnpm test:reliability`.
 */

const SOURCE = 'apps/api/src/receipts/chain-tamper.trust.test.ts';

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

type Expected = { seq: string; id: string | null; reason: string; field?: string };

/** Verifies, records whether the tampering was detected and located, then asserts both. */
async function expectCaught(
  kind: (typeof TAMPER_KINDS)[number],
  gateway: string,
  expected: Expected,
): Promise<void> {
  const result = await verifyAs(api, gateway);
  const found = result.firstBreak;
  const detected = !result.valid && found !== undefined;
  const located = found?.seq === expected.seq && found.id === expected.id;
  recordFigures({ source: SOURCE, tamper: { kind, detected, located } });
  expect(result.valid).toBe(false);
  expect(found).toMatchObject(expected);
  expect(result.checked).toBe(Number(expected.seq) - 1);
  expect(found?.message).toBeTruthy();
}

/**
 * Receipts 1–2 declare two tools; from 3 on the agent also declares `create_pull_request`, which
 * the policy hides and whose call it blocks: a tool set first used at seq 3, outcome `blocked`.
 * Tool sets are shared by content across gateways, so each chain gets a tool of its own.
 */
async function chainWithHiddenTool(name: string, count = 6): Promise<Receipt[]> {
  return gatewayWithChain(api, name, count, (i) =>
    i < 2
      ? {}
      : {
          tools: [
            'search_code',
            'read_file',
            'create_pull_request',
            `${name.replaceAll('-', '_')}`,
          ],
          calls: ['create_pull_request'],
          identity: { human: 'bob', session: `session-${i}` },
        },
  );
}

const toolSetHashOf = (receipt: Receipt) => compactReceipt(receipt).stored.tool_set_hash;

describe('tool set tampering', () => {
  it('finds a tool set edited to show a hidden tool, at the first receipt using it', async () => {
    const chain = await chainWithHiddenTool('t-tool-set-edit');
    const hash = toolSetHashOf(chain[2] as Receipt);
    const index = chain[2]?.tools.findIndex((tool) => tool.name === 'create_pull_request');
    await db.query(
      `UPDATE tool_sets SET body = jsonb_set(jsonb_set(body,
         ARRAY['tools', $2, 'visible_to_provider'], 'true'), ARRAY['tools', $2, 'policy_state'], '"allowed"')
       WHERE hash = $1`,
      [hash, String(index)],
    );
    // The hole was: the receipt as served showed the hidden tool as visible. Now it is refused.
    await expect(
      call(api.operator, 'receipts.get', { params: { id: 't-tool-set-edit-4' } }),
    ).rejects.toMatchObject({ httpStatus: 409, message: expect.stringContaining(hash) });
    await expectCaught('tool set edit', 't-tool-set-edit', {
      seq: '3',
      id: 't-tool-set-edit-3',
      reason: 'tool_set_mismatch',
      field: hash,
    });
  });

  it('finds a deleted tool set, at the first receipt using it', async () => {
    const chain = await chainWithHiddenTool('t-tool-set-delete');
    const hash = toolSetHashOf(chain[2] as Receipt);
    await db.query('DELETE FROM tool_sets WHERE hash = $1', [hash]);
    await expect(
      call(api.operator, 'receipts.get', { params: { id: 't-tool-set-delete-3' } }),
    ).rejects.toMatchObject({ httpStatus: 409, message: expect.stringContaining('missing') });
    await expectCaught('tool set delete', 't-tool-set-delete', {
      seq: '3',
      id: 't-tool-set-delete-3',
      reason: 'tool_set_missing',
      field: hash,
    });
  });
});

/** Each column the list shows or filters on, a doctored value, and how verify names it. */
const COLUMN_EDITS: Array<{ column: string; set: string; reason?: string; field?: string }> = [
  { column: 'outcome', set: `outcome = 'ok'` },
  { column: 'identity_human', set: `identity_human = 'mallory'` },
  { column: 'identity_service', set: `identity_service = 'ci-bot'` },
  { column: 'identity_session', set: 'identity_session = NULL' },
  { column: 'binding', set: `binding = 'unverified'` },
  { column: 'model', set: `model = 'gpt-4o'` },
  { column: 'tools', set: `tools = array_remove(tools, 'create_pull_request')` },
  { column: 'rules', set: `rules = '{}'` },
  { column: 'policies', set: `policies = ARRAY['annotate']` },
  { column: 'capabilities', set: `capabilities = ARRAY['wardwright.web_search.v1']` },
  { column: 'gateway', set: `gateway = 'another-gateway'` },
  { column: 'surface', set: `surface = 'anthropic-messages'` },
  { column: 'stream', set: 'stream = true' },
  { column: 'status', set: 'status = 500' },
  { column: 'prev_hash', set: 'prev_hash = NULL' },
  { column: 'tool_set_hash', set: `tool_set_hash = 'sha256:${'0'.repeat(64)}'` },
  {
    column: 'hash',
    set: `hash = 'sha256:${'0'.repeat(64)}'`,
    reason: 'hash_mismatch',
    field: 'receipts.hash',
  },
  { column: 'seq', set: 'seq = seq + 100', reason: 'link_mismatch', field: 'seq' },
  // The partition key: the row no longer joins its link.
  {
    column: 'received_at',
    set: `received_at = received_at - interval '1 day'`,
    reason: 'link_mismatch',
    field: 'received_at',
  },
];

describe('list column tampering', () => {
  const name = 't-columns';
  beforeAll(async () => {
    await chainWithHiddenTool(name, 5);
  });

  it.each(COLUMN_EDITS)('finds an edited $column column at its receipt', async (edit) => {
    // Saved whole and put back after, so every edit starts from an intact chain.
    const saved = await db.query('SELECT * FROM receipts WHERE id = $1', [`${name}-4`]);
    await db.query(`UPDATE receipts SET ${edit.set} WHERE id = $1`, [`${name}-4`]);
    try {
      await expectCaught('list column edit', name, {
        seq: '4',
        id: `${name}-4`,
        reason: edit.reason ?? 'column_mismatch',
        field: edit.field ?? edit.column,
      });
    } finally {
      await db.query('DELETE FROM receipts WHERE id = $1', [`${name}-4`]);
      await db.query(
        'INSERT INTO receipts SELECT * FROM json_populate_record(NULL::receipts, $1)',
        [JSON.stringify(saved.rows[0])],
      );
    }
    expect((await verifyAs(api, name)).valid).toBe(true);
  });

  it('finds received_at moved in the receipt and its link alike', async () => {
    await db.query(
      `UPDATE receipt_links SET received_at = received_at + interval '1 hour' WHERE id = $1;`,
      [`${name}-2`],
    );
    await db.query(
      `UPDATE receipts SET received_at = received_at + interval '1 hour' WHERE id = $1`,
      [`${name}-2`],
    );
    await expectCaught('list column edit', name, {
      seq: '2',
      id: `${name}-2`,
      reason: 'column_mismatch',
      field: 'received_at',
    });
  });

  it('an auditor filtering outcome=blocked is not shown a doctored list with a clean verify', async () => {
    const gateway = 't-blocked-filter';
    await chainWithHiddenTool(gateway, 4);
    const blocked = async () =>
      (await call(api.operator, 'receipts.list', { query: { gateway, outcome: 'blocked' } })).items
        .map((item) => item.id)
        .sort();
    expect(await blocked()).toEqual([`${gateway}-3`, `${gateway}-4`]);
    await db.query(`UPDATE receipts SET outcome = 'ok' WHERE id = $1`, [`${gateway}-3`]);
    expect(await blocked()).toEqual([`${gateway}-4`]);
    await expectCaught('list column edit', gateway, {
      seq: '3',
      id: `${gateway}-3`,
      reason: 'column_mismatch',
      field: 'outcome',
    });
  });
});

describe('body tampering', () => {
  it('finds an edited body at that receipt', async () => {
    await gatewayWithChain(api, 't-body-edit', 6);
    await db.query(
      `UPDATE receipts SET body = jsonb_set(body, '{outcome,status}', '500') WHERE id = $1`,
      ['t-body-edit-4'],
    );
    await expectCaught('body edit', 't-body-edit', {
      seq: '4',
      id: 't-body-edit-4',
      reason: 'hash_mismatch',
      field: 'body',
    });
  });

  it('finds a body rewritten with every copy of its hash recomputed at that receipt, not the next', async () => {
    const chain = await gatewayWithChain(api, 't-body-rewrite', 12);
    const { hash: _hash, ...rest } = compactReceipt(chain[9] as Receipt).stored;
    const forged = { ...rest, model: 'forged' };
    const hash = receiptHash(forged);
    await db.query('UPDATE receipts SET body = $1, hash = $2, model = $3 WHERE id = $4', [
      JSON.stringify({ ...forged, hash }),
      hash,
      'forged',
      't-body-rewrite-10',
    ]);
    await db.query('UPDATE receipt_links SET hash = $1 WHERE id = $2', [hash, 't-body-rewrite-10']);
    await expectCaught('body edit', 't-body-rewrite', {
      seq: '10',
      id: 't-body-rewrite-10',
      reason: 'successor_mismatch',
    });
  });
});

describe('reordering', () => {
  it('finds two receipts swapped in the chain (links and rows) at the first of them', async () => {
    const chain = await gatewayWithChain(api, 't-reorder', 6);
    for (const table of ['receipt_links', 'receipts']) {
      await db.query(`UPDATE ${table} SET seq = -3 WHERE id = 't-reorder-3'`);
      await db.query(`UPDATE ${table} SET seq = 3 WHERE id = 't-reorder-4'`);
      await db.query(`UPDATE ${table} SET seq = 4 WHERE id = 't-reorder-3'`);
    }
    await expectCaught('reorder', 't-reorder', {
      seq: '3',
      id: 't-reorder-4',
      reason: 'prev_hash_mismatch',
    });
    const result = await verifyAs(api, 't-reorder');
    expect(result.firstBreak).toMatchObject({ expected: chain[1]?.hash, actual: chain[2]?.hash });
  });

  it('finds two bodies swapped between rows at the first of them', async () => {
    await gatewayWithChain(api, 't-swap', 6);
    await db.query(
      `UPDATE receipts r SET body = o.body FROM receipts o
       WHERE (r.id, o.id) IN (('t-swap-3', 't-swap-4'), ('t-swap-4', 't-swap-3'))`,
    );
    await expectCaught('reorder', 't-swap', { seq: '3', id: 't-swap-3', reason: 'hash_mismatch' });
  });
});

describe('deletion', () => {
  it('finds a deleted receipt at its own seq', async () => {
    await gatewayWithChain(api, 't-delete', 6);
    await db.query('DELETE FROM receipts WHERE id = $1', ['t-delete-4']);
    await expectCaught('delete', 't-delete', {
      seq: '4',
      id: 't-delete-4',
      reason: 'body_missing',
    });
  });

  it('finds a receipt deleted with its link at the missing seq', async () => {
    await gatewayWithChain(api, 't-delete-link', 6);
    await db.query('DELETE FROM receipts WHERE id = $1', ['t-delete-link-4']);
    await db.query('DELETE FROM receipt_links WHERE id = $1', ['t-delete-link-4']);
    await expectCaught('delete', 't-delete-link', { seq: '4', id: null, reason: 'seq_gap' });
  });
});
