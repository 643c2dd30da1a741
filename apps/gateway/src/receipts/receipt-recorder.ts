import { randomFillSync } from 'node:crypto';
import {
  buildReceiptBody,
  chainReceiptJson,
  type JsonObject,
  type ReceiptInput,
  type ToolSet,
} from '@toolgate/core';
import type { Spool } from '../spool/spool.ts';
import { type SpooledReceipt, spooledReceiptPieces } from './spooled-receipt.ts';

const MAX_TRACKED_SCHEMAS = 100_000;
const MAX_TRACKED_TOOL_SETS = 10_000;

/**
 * Random bytes for receipt ids, drawn 4 KiB at a time: one `randomFillSync` per 512 ids instead
 * of one per request (it showed in the proxy's profile). Ids need uniqueness, not secrecy.
 */
const ID_POOL = Buffer.alloc(4096);
let idPoolOffset = ID_POOL.length;
function randomHex8(): string {
  if (idPoolOffset + 8 > ID_POOL.length) {
    randomFillSync(ID_POOL);
    idPoolOffset = 0;
  }
  const hex = ID_POOL.toString('hex', idPoolOffset, idPoolOffset + 8);
  idPoolOffset += 8;
  return hex;
}

/** Where the proxy hands each finished request's receipt. */
export interface ReceiptSink {
  /** True when a receipt would be refused: checked before calling the provider. */
  full(): boolean;
  /** Resolves with the receipt id once the receipt is durable. */
  record(input: ReceiptInput, schemas: ReadonlyMap<string, JsonObject>): Promise<string>;
}

/**
 * `RECEIPTS=off`: records nothing. It exists so `pnpm bench` can measure what receipts cost
 * (same gateway, receipts on vs off); the gateway warns loudly at start when it is set.
 */
export class DisabledReceipts implements ReceiptSink {
  full(): boolean {
    return false;
  }

  async record(input: ReceiptInput): Promise<string> {
    return input.id;
  }
}

/**
 * Turns a finished request into a receipt in the spool: chained to this gateway's previous one,
 * in its stored form (the tool set referenced by hash), with the tool declarations and the tool
 * set the shipper still has to send. `record` resolves once the receipt is durable — callers
 * await it before completing the agent's response.
 */
export class ReceiptRecorder implements ReceiptSink {
  /** Schema hashes already handed to the spool by this process (the shipper uploads them). */
  private readonly scheduled = new Set<string>();
  /** Tool set hashes already handed to the spool by this process (they ship with a batch). */
  private readonly scheduledToolSets = new Set<string>();

  constructor(private readonly spool: Spool<SpooledReceipt>) {}

  /** True when the spool would refuse a receipt: check before calling the provider. */
  full(): boolean {
    return this.spool.atCapacity();
  }

  /** Time-ordered, unique: `rcpt_` + 10 base36 digits of milliseconds + 16 random hex. */
  static newId(now: number): string {
    return `rcpt_${now.toString(36).padStart(10, '0')}${randomHex8()}`;
  }

  async record(input: ReceiptInput, schemas: ReadonlyMap<string, JsonObject>): Promise<string> {
    const body = buildReceiptBody(input);
    const pending: Record<string, JsonObject> = {};
    for (const [hash, declaration] of schemas) {
      if (!this.scheduled.has(hash)) pending[hash] = declaration;
    }
    // Reading the chain head and appending happen in one synchronous step: concurrent requests
    // cannot fork the chain.
    const chained = chainReceiptJson(body, this.spool.chainHead());
    const toolSets: Record<string, ToolSet> = {};
    if (!this.scheduledToolSets.has(chained.toolSetHash)) {
      toolSets[chained.toolSetHash] = chained.toolSet;
    }
    const payload = spooledReceiptPieces({
      id: body.id,
      hash: chained.hash,
      receiptJson: chained.json,
      schemas: pending,
      toolSets,
    });
    // A record a full spool dropped carried nothing: the next one must carry the same again.
    if (!(await this.spool.appendEncoded(payload, chained.hash))) return body.id;
    remember(this.scheduled, Object.keys(pending), MAX_TRACKED_SCHEMAS);
    remember(this.scheduledToolSets, Object.keys(toolSets), MAX_TRACKED_TOOL_SETS);
    return body.id;
  }
}

/** Forgetting costs only a second copy in the spool: the set is cleared when it grows too big. */
function remember(set: Set<string>, hashes: ReadonlyArray<string>, max: number): void {
  if (set.size > max) set.clear();
  for (const hash of hashes) set.add(hash);
}
