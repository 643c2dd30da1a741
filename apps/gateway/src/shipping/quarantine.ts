import { access, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SpooledReceipt } from '../receipts/spooled-receipt.ts';
import { fsyncDir, mkdirDurable } from '../spool/durable-fs.ts';

/** One line of `rejected-receipts.ndjson`. */
export interface QuarantinedReceipt {
  quarantinedAt: string;
  /** Spool sequence number it had. */
  seq: number;
  /** The API's rejection reason (`ChainBroken`, `Conflict`, `Invalid`, `HashMismatch`, …). */
  reason: string;
  message?: string;
  /** The record exactly as spooled, declarations included. */
  record: SpooledReceipt;
}

/**
 * Where receipts the API will never accept go, so the spool can move on without losing them:
 * an append-only NDJSON file, fsynced before the spool acknowledges what it holds. A crash
 * between the two may write an entry twice (the record is shipped and rejected again), never
 * lose one.
 */
export class Quarantine {
  constructor(readonly path: string) {}

  async add(entries: ReadonlyArray<QuarantinedReceipt>): Promise<void> {
    if (entries.length === 0) return;
    const created = !(await exists(this.path));
    if (created) await mkdirDurable(dirname(this.path));
    const handle = await open(this.path, 'a');
    try {
      await handle.writeFile(entries.map((e) => `${JSON.stringify(e)}\n`).join(''), 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (created) await fsyncDir(dirname(this.path));
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
