import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildReceiptBody,
  compileBundle,
  mediateRequest,
  Receipt,
  verifyChain,
} from '@toolgate/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Spool } from '../spool/spool.ts';
import { DisabledReceipts, ReceiptRecorder } from './receipt-recorder.ts';
import { decodeSpooledReceipt, type SpooledReceipt } from './spooled-receipt.ts';

const bundle = compileBundle({
  policies: [
    {
      name: 'p',
      generation: 1,
      spec: { rules: [{ id: 'hide-delete', action: 'hide', match: { name: 'delete_repo' } }] },
    },
  ],
});

function input(id: string) {
  const tool = (name: string) => ({
    type: 'function',
    function: { name, parameters: { type: 'object', properties: {} } },
  });
  const mediation = mediateRequest(bundle, {
    surface: 'openai-chat',
    body: { model: 'm', messages: [], tools: [tool('search'), tool('delete_repo')] },
    identity: {},
  });
  return {
    receipt: {
      id,
      gateway: 'g',
      receivedAt: '2026-01-01T00:00:00.000Z',
      completedAt: '2026-01-01T00:00:01.000Z',
      latencyMs: { total: 1, mediation: 0.1, upstream: 0.9 },
      identity: { binding: 'unverified' as const },
      bundleEtag: 'etag',
      mediation,
      outcome: { status: 200 },
    },
    schemas: mediation.schemas,
  };
}

describe('ReceiptRecorder', () => {
  let dir: string;
  let spool: Spool<SpooledReceipt>;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'recorder-'));
    spool = await Spool.open<SpooledReceipt>({ dir, maxBytes: 1 << 20 });
  });
  afterEach(async () => {
    await spool.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('spools valid chained receipts, each schema handed over once', async () => {
    const recorder = new ReceiptRecorder(spool);
    for (const id of ['r1', 'r2', 'r3']) {
      const { receipt, schemas } = input(id);
      expect(await recorder.record(receipt, schemas)).toBe(id);
    }
    const records = (await spool.pendingEncoded(10)).map((r) => decodeSpooledReceipt(r.payload));
    const receipts = records.map((r) => Receipt.parse(JSON.parse(r.receiptJson.toString('utf8'))));
    expect(receipts.map((r) => r.id)).toEqual(['r1', 'r2', 'r3']);
    expect(verifyChain(receipts)).toEqual({ valid: true, checked: 3 });
    expect(receipts[0]).toEqual({
      ...buildReceiptBody(input('r1').receipt),
      prev_hash: null,
      hash: records[0]?.hash,
    });
    expect(Object.keys(records[0]?.schemas ?? {})).toHaveLength(2);
    expect(records[1]?.schemas).toEqual({});
    expect(spool.chainHead()).toBe(receipts[2]?.hash);
  });

  it('makes unique, time-ordered ids (across refills of the random pool)', () => {
    const ids = Array.from({ length: 2000 }, (_, i) =>
      ReceiptRecorder.newId(1_700_000_000_000 + i),
    );
    expect(new Set(ids).size).toBe(2000);
    for (const id of ids) expect(id).toMatch(/^rcpt_[0-9a-z]{10}[0-9a-f]{16}$/);
    expect([...ids].sort()).toEqual(ids);
    const sameMs = Array.from({ length: 600 }, () => ReceiptRecorder.newId(1_700_000_000_000));
    expect(new Set(sameMs).size).toBe(600);
  });

  it('RECEIPTS=off answers with the request id and is never full', async () => {
    const disabled = new DisabledReceipts();
    expect(await disabled.record(input('r9').receipt)).toBe('r9');
    expect(disabled.full()).toBe(false);
  });
});
