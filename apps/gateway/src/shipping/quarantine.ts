import { createReadStream } from 'node:fs';
import { access, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import {
  boundedText,
  type QuarantinedReceiptSummary,
  type ReceiptQuarantineStatus,
} from '@toolgate/core';
import type { SpooledReceipt } from '../receipts/spooled-receipt.ts';
import { fsyncDir, mkdirDurable } from '../spool/durable-fs.ts';

/** One line of `rejected-receipts.ndjson`. */
export interface QuarantinedReceipt {
  quarantinedAt: string;
  /** Spool sequence number it had. */
  seq: number;
  /**
   * Why the API refused it: the per-receipt reason (`Invalid`, `HashMismatch`, `Conflict`,
   * `ChainBroken`, …) or, for a batch of one refused whole, the Status reason
   * (`RequestEntityTooLarge`, `BadRequest`, …).
   */
  reason: string;
  message?: string;
  /** Size of the spooled record, in bytes. */
  bytes?: number;
  /** The record exactly as spooled, declarations included. */
  record: SpooledReceipt;
}

/** How many of the newest entries the summary (and so `Gateway.status`) lists. */
export const RECENT_ENTRIES = 10;
/** Messages in the summary are cut to this: the status stays small, the file has it all. */
const SUMMARY_MESSAGE = 256;

/**
 * Where receipts the API will never accept go, so the spool can move on without losing them:
 * an append-only NDJSON file, fsynced before the spool acknowledges what it holds. A crash
 * between the two ships and refuses the record again; the entry is then not written twice
 * (entries are known by receipt id and hash). Keeps a summary in memory for `Gateway.status`
 * and `/metrics`: how many entries the file holds (read once at start) and the newest ones.
 */
export class Quarantine {
  private loading: Promise<void> | undefined;
  private readonly keys = new Set<string>();
  private recent: QuarantinedReceiptSummary[] = [];
  private last: { reason: string; time: string } | undefined;
  /** A crash mid-append can leave a partial last line: the next entry starts on a new line. */
  private needsNewline = false;

  constructor(readonly path: string) {}

  /** Entries in the file (each receipt once), known after `load()`. */
  get count(): number {
    return this.keys.size;
  }

  /** Reads the file once (later calls wait for that read); a missing file is an empty one. */
  load(): Promise<void> {
    this.loading ??= this.read();
    return this.loading;
  }

  summary(): ReceiptQuarantineStatus {
    return {
      count: this.keys.size,
      ...(this.last ? { lastReason: this.last.reason, lastTime: this.last.time } : {}),
      recent: [...this.recent],
    };
  }

  /** Whether this receipt (id and hash) is in the file already. */
  has(id: string, hash: string): boolean {
    return this.keys.has(keyOf(id, hash));
  }

  /** Appends the entries not in the file yet, durably; returns those it wrote. */
  async add(entries: ReadonlyArray<QuarantinedReceipt>): Promise<QuarantinedReceipt[]> {
    await this.load();
    const fresh = entries.filter((e) => !this.has(e.record.receipt.id, e.record.hash));
    if (fresh.length === 0) return [];
    const created = !(await exists(this.path));
    if (created) await mkdirDurable(dirname(this.path));
    const text = fresh.map((e) => `${JSON.stringify(e)}\n`).join('');
    const handle = await open(this.path, 'a');
    try {
      await handle.writeFile(this.needsNewline ? `\n${text}` : text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (created) await fsyncDir(dirname(this.path));
    this.needsNewline = false;
    for (const entry of fresh) this.remember(entry);
    return fresh;
  }

  private async read(): Promise<void> {
    if (!(await exists(this.path))) return;
    let lastLine = '';
    const lines = createInterface({
      input: createReadStream(this.path, { encoding: 'utf8' }),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    for await (const line of lines) {
      lastLine = line;
      if (line.trim() === '') continue;
      try {
        this.remember(JSON.parse(line) as QuarantinedReceipt);
      } catch {
        // The partial line of an append a crash cut short: its record was never acknowledged,
        // so it is still in the spool and will be quarantined again.
      }
    }
    const handle = await open(this.path, 'r');
    try {
      const { size } = await handle.stat();
      if (size > 0) {
        const { buffer } = await handle.read(Buffer.alloc(1), 0, 1, size - 1);
        this.needsNewline = buffer[0] !== 0x0a && lastLine !== '';
      }
    } finally {
      await handle.close();
    }
  }

  private remember(entry: QuarantinedReceipt): void {
    const id = entry.record?.receipt?.id;
    const hash = entry.record?.hash;
    if (typeof id !== 'string' || typeof hash !== 'string') return;
    const key = keyOf(id, hash);
    if (this.keys.has(key)) return;
    this.keys.add(key);
    this.last = { reason: entry.reason, time: entry.quarantinedAt };
    this.recent.push({
      id,
      hash,
      reason: entry.reason,
      ...(entry.message !== undefined
        ? { message: boundedText(entry.message, SUMMARY_MESSAGE) }
        : {}),
      bytes: entry.bytes ?? 0,
      quarantinedAt: entry.quarantinedAt,
    });
    if (this.recent.length > RECENT_ENTRIES) this.recent.shift();
  }
}

function keyOf(id: string, hash: string): string {
  return `${hash} ${id}`;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
