import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildReceiptBody,
  chainReceipt,
  compactReceipt,
  compileBundle,
  hashCanonical,
  mediateRequest,
  StoredReceipt,
  toolSetOf,
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

/** A finished request with `search`, `delete_repo` and `extraTools` more tools. */
function input(id: string, extraTools = 0) {
  const tool = (name: string) => ({
    type: 'function',
    function: { name, parameters: { type: 'object', properties: {} } },
  });
  const extra = Array.from({ length: extraTools }, (_, i) => tool(`extra_tool_${i}`));
  const mediation = mediateRequest(bundle, {
    surface: 'openai-chat',
    body: { model: 'm', messages: [], tools: [tool('search'), tool('delete_repo'), ...extra] },
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

  it('spools valid chained receipts in stored form, each schema and tool set handed over once', async () => {
    const recorder = new ReceiptRecorder(spool);
    for (const id of ['r1', 'r2', 'r3']) {
      const { receipt, schemas } = input(id);
      expect(await recorder.record(receipt, schemas)).toBe(id);
    }
    const records = (await spool.pendingEncoded(10)).map((r) => decodeSpooledReceipt(r.payload));
    const receipts = records.map((r) =>
      StoredReceipt.parse(JSON.parse(r.receiptJson.toString('utf8'))),
    );
    expect(receipts.map((r) => r.id)).toEqual(['r1', 'r2', 'r3']);
    expect(verifyChain(receipts)).toEqual({ valid: true, checked: 3 });
    const served = chainReceipt(buildReceiptBody(input('r1').receipt), null);
    expect(receipts[0]).toEqual(compactReceipt(served).stored);
    expect(records[0]?.hash).toBe(served.hash);
    expect(Object.keys(records[0]?.schemas ?? {})).toHaveLength(2);
    expect(records[1]?.schemas).toEqual({});
    // The tool set rides with the first receipt only, filed under the hash they all reference.
    const setHash = receipts[0]?.tool_set_hash as string;
    expect(receipts.every((r) => r.tool_set_hash === setHash)).toBe(true);
    expect(records[0]?.toolSets).toEqual({ [setHash]: toolSetOf(served) });
    expect(hashCanonical(records[0]?.toolSets[setHash])).toBe(setHash);
    expect(records[1]?.toolSets).toEqual({});
    expect(records[2]?.toolSets).toEqual({});
    expect(spool.chainHead()).toBe(receipts[2]?.hash);
  });

  it('hands a tool set over again when a full spool dropped the record that carried it', async () => {
    const dropDir = await mkdtemp(join(tmpdir(), 'recorder-drop-'));
    const small = await Spool.open<SpooledReceipt>({
      dir: dropDir,
      maxBytes: 4096,
      fullPolicy: 'drop',
      fsync: 'always',
    });
    try {
      const recorder = new ReceiptRecorder(small);
      const records = async () =>
        (await small.pendingEncoded(100)).map((r) => decodeSpooledReceipt(r.payload));
      // Fill the spool with receipts of one tool list, then a new tool list's first receipt
      // (its carrier) is dropped.
      for (let i = 0; small.stats().dropped === 0; i++) {
        await recorder.record(input(`a${i}`).receipt, new Map());
      }
      await recorder.record(input('b0', 1).receipt, new Map());
      expect(small.stats().dropped).toBe(2);
      // Shipped and acknowledged: room again. The next receipt of that tool list carries it.
      const stored = await small.pendingEncoded(100);
      await small.ackThrough(stored.at(-1)?.seq as number);
      await recorder.record(input('b1', 1).receipt, new Map());
      const [carrier] = await records();
      expect(carrier?.id).toBe('b1');
      const setHash = JSON.parse(carrier?.receiptJson.toString('utf8') as string).tool_set_hash;
      expect(Object.keys(carrier?.toolSets ?? {})).toEqual([setHash]);
    } finally {
      await small.close();
      await rm(dropDir, { recursive: true, force: true });
    }
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
