import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as immediate } from 'node:timers/promises';
import {
  compileBundle,
  mcpToolListRequest,
  mediateRequest,
  StoredReceipt,
  verifyChain,
} from '@toolgate/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ActiveBundle } from '../bundle/bundle-store.ts';
import { ReceiptRecorder } from '../receipts/receipt-recorder.ts';
import { decodeSpooledReceipt, type SpooledReceipt } from '../receipts/spooled-receipt.ts';
import { Spool } from '../spool/spool.ts';
import { type McpFinished, McpReceipts, type McpRequestRecord } from './mcp-receipts.ts';

const compiled = compileBundle({
  policies: [
    {
      name: 'p',
      generation: 1,
      spec: {
        rules: [{ id: 'hide-delete', action: 'hide', match: { name: 'github/delete_repo' } }],
      },
    },
  ],
});
const active = { etag: 'etag-1', compiled } as unknown as ActiveBundle;

function mediationOf(tools: string[]) {
  return mediateRequest(compiled, {
    surface: 'mcp',
    body: mcpToolListRequest(
      'github',
      tools.map((name) => ({ name, inputSchema: { type: 'object' } })),
    ),
    identity: { human: 'alice' },
  });
}

function record(tools = ['create_issue', 'delete_repo']): McpRequestRecord {
  return {
    id: 'rcpt_0000000001aaaaaaaaaaaaaaaa',
    receivedAt: Date.parse('2026-01-02T03:04:05.000Z'),
    started: 0,
    active,
    identity: { human: 'alice', binding: 'verified' },
    mediation: mediationOf(tools),
    mediationMs: 0.25,
  };
}

const finished: McpFinished = {
  status: 502,
  error: 'MCP server github failed',
  upstreamMs: 1.5,
  mcp: {
    server: 'github',
    method: 'tools/call',
    session: 's-1',
    error: { code: -32603, message: 'MCP server github failed' },
  },
};

/** The MCP receipts of one fresh spool, with the clocks fixed so two recorders agree. */
async function receipts(dir: string) {
  const spool = await Spool.open<SpooledReceipt>({ dir, maxBytes: 1 << 20 });
  const mcp = new McpReceipts({
    gateway: 'gw-1',
    recorder: new ReceiptRecorder(spool),
    metrics: { spoolRejected: { inc: () => {} } } as never,
    log: { error: () => {} },
    now: () => Date.parse('2026-01-02T03:04:06.000Z'),
  });
  let read = 0;
  /** The next spooled receipt, its hash checked; less its total latency and hash (measured). */
  const stored = async () => {
    const records = await spool.pendingEncoded(read + 1);
    const last = records[read++];
    const text = decodeSpooledReceipt(last?.payload as Buffer).receiptJson.toString('utf8');
    const receipt = StoredReceipt.parse(JSON.parse(text));
    expect(verifyChain([receipt])).toEqual({ valid: true, checked: 1 });
    const { hash: _hash, ...rest } = receipt;
    return { ...rest, latency_ms: { ...rest.latency_ms, total: 0 } };
  };
  return { mcp, stored, close: () => spool.close() };
}

describe('McpReceipts', () => {
  let dirs: string[];
  beforeEach(() => {
    dirs = [];
  });
  afterEach(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });
  const dir = async () => {
    const made = await mkdtemp(join(tmpdir(), 'mcp-receipts-'));
    dirs.push(made);
    return made;
  };

  it('records from the draft made while the upstream works the receipt a full build makes', async () => {
    const drafted = await receipts(await dir());
    const built = await receipts(await dir());
    try {
      const withDraft = record();
      drafted.mcp.draftSoon(withDraft);
      expect(withDraft.draft).toBeUndefined(); // not before the request's own work is done
      await immediate();
      expect(withDraft.draft?.of).toBe(withDraft.mediation);
      expect(await drafted.mcp.record(withDraft, finished)).toEqual({ ok: true });
      expect(await built.mcp.record(record(), finished)).toEqual({ ok: true });
      const receipt = await drafted.stored();
      expect(receipt).toEqual(await built.stored());
      expect(receipt.surface).toBe('mcp');
      expect(receipt.mcp).toMatchObject({ server: 'github', method: 'tools/call', session: 's-1' });
    } finally {
      await Promise.all([drafted.close(), built.close()]);
    }
  });

  it('does not use a draft of another mediation, nor make one once recorded', async () => {
    const drafted = await receipts(await dir());
    const built = await receipts(await dir());
    try {
      const changed = record();
      drafted.mcp.draftSoon(changed);
      await immediate();
      // The request's mediation was replaced after the draft (a refetched list): a full build.
      changed.mediation = mediationOf(['create_issue']);
      await drafted.mcp.record(changed, finished);
      await built.mcp.record(record(['create_issue']), finished);
      expect(await drafted.stored()).toEqual(await built.stored());

      const late = record();
      drafted.mcp.draftSoon(late);
      await drafted.mcp.record(late, finished);
      await immediate();
      expect(late.draft).toBeUndefined();
    } finally {
      await Promise.all([drafted.close(), built.close()]);
    }
  });
});
