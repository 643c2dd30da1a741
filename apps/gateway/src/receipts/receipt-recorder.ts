import { randomFillSync } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  buildReceiptBody,
  chainReceiptJson,
  type JsonObject,
  type MediationResult,
  type ReceiptBody,
  ReceiptDraft,
  type ReceiptDraftInput,
  type ReceiptEnd,
  type ReceiptIdentity,
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

/** What a request's record holds of its receipt's request side (LLM and MCP records alike). */
export interface DraftableRecord {
  id: string;
  /** Wall-clock ms when the request arrived. */
  receivedAt: number;
  identity: ReceiptIdentity;
  active: { etag: string };
  mediation: MediationResult;
}

/** A whole receipt's input: the record's request side and how the request ended. */
export function receiptInputOf(
  gateway: string,
  record: DraftableRecord,
  end: ReceiptEnd,
): ReceiptInput {
  return { ...requestSide(gateway, record), ...end };
}

/** What the receipt records of the request itself, known once it has gone upstream. */
function requestSide(gateway: string, record: DraftableRecord): ReceiptDraftInput {
  return {
    id: record.id,
    gateway,
    receivedAt: new Date(record.receivedAt).toISOString(),
    identity: record.identity,
    bundleEtag: record.active.etag,
    mediation: record.mediation,
  };
}

/** When a request ended and how long its parts took, as its receipt records them. */
export function receiptTiming(
  now: number,
  record: { started: number; mediationMs: number },
  upstreamMs: number,
): Pick<ReceiptEnd, 'completedAt' | 'latencyMs'> {
  return {
    completedAt: new Date(now).toISOString(),
    latencyMs: {
      total: round(performance.now() - record.started),
      mediation: round(record.mediationMs),
      upstream: round(upstreamMs),
    },
  };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * The receipt's request side built ahead (`ReceiptDraft`), or undefined when it cannot be made:
 * the full build at `record` then fails the same way, and says why.
 */
export function draftReceipt(gateway: string, record: DraftableRecord): ReceiptDraft | undefined {
  try {
    return new ReceiptDraft(requestSide(gateway, record));
  } catch {
    return undefined;
  }
}

/**
 * A receipt whose request side was drafted while the provider worked (`ReceiptDraft`), and how
 * the request ended: the same receipt as the `ReceiptInput` of both, with less left to do once
 * the answer is in.
 */
export interface DraftedReceipt {
  id: string;
  draft: ReceiptDraft;
  end: ReceiptEnd;
}

/** What a sink records: a receipt's whole input, or its draft and end. */
export type ReceiptToRecord = ReceiptInput | DraftedReceipt;

/** Where the proxy hands each finished request's receipt. */
export interface ReceiptSink {
  /** True when a receipt would be refused: checked before calling the provider. */
  full(): boolean;
  /** Resolves with the receipt id once the receipt is durable. */
  record(input: ReceiptToRecord, schemas: ReadonlyMap<string, JsonObject>): Promise<string>;
  /** False when the sink records nothing (`RECEIPTS=off`): the proxy drafts no receipts for it. */
  readonly drafts?: boolean;
}

/**
 * `RECEIPTS=off`: records nothing. It exists so `pnpm bench` can measure what receipts cost
 * (same gateway, receipts on vs off); the gateway warns loudly at start when it is set.
 */
export class DisabledReceipts implements ReceiptSink {
  readonly drafts = false;

  full(): boolean {
    return false;
  }

  async record(input: ReceiptToRecord): Promise<string> {
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
  /**
   * The last schema map found wholly scheduled: agents resend the same tools, and the engine's
   * memoized outcome hands the same map each time, so its 50-odd hashes are not looked up again.
   */
  private scheduledMap: ReadonlyMap<string, JsonObject> | undefined;

  constructor(private readonly spool: Spool<SpooledReceipt>) {}

  /** True when the spool would refuse a receipt: check before calling the provider. */
  full(): boolean {
    return this.spool.atCapacity();
  }

  /** Time-ordered, unique: `rcpt_` + 10 base36 digits of milliseconds + 16 random hex. */
  static newId(now: number): string {
    return `rcpt_${now.toString(36).padStart(10, '0')}${randomHex8()}`;
  }

  async record(input: ReceiptToRecord, schemas: ReadonlyMap<string, JsonObject>): Promise<string> {
    const drafted = 'draft' in input;
    const body = drafted ? undefined : buildReceiptBody(input);
    const pending: Record<string, JsonObject> = {};
    if (schemas !== this.scheduledMap) {
      for (const [hash, declaration] of schemas) {
        if (!this.scheduled.has(hash)) pending[hash] = declaration;
      }
    }
    // Reading the chain head and appending happen in one synchronous step: concurrent requests
    // cannot fork the chain.
    const head = this.spool.chainHead();
    const chained = drafted
      ? input.draft.chainJson(input.end, head)
      : chainReceiptJson(body as ReceiptBody, head);
    const toolSets: Record<string, ToolSet> = {};
    if (!this.scheduledToolSets.has(chained.toolSetHash)) {
      toolSets[chained.toolSetHash] = chained.toolSet;
    }
    const payload = spooledReceiptPieces({
      id: input.id,
      hash: chained.hash,
      receiptJson: chained.json,
      schemas: pending,
      toolSets,
    });
    // A record a full spool dropped carried nothing: the next one must carry the same again.
    if (!(await this.spool.appendEncoded(payload, chained.hash))) return input.id;
    if (schemas !== this.scheduledMap) {
      const cleared = remember(this.scheduled, Object.keys(pending), MAX_TRACKED_SCHEMAS);
      // Every hash of this map is scheduled now, unless the set was just cleared.
      this.scheduledMap = cleared ? undefined : schemas;
    }
    remember(this.scheduledToolSets, Object.keys(toolSets), MAX_TRACKED_TOOL_SETS);
    return input.id;
  }
}

/**
 * Forgetting costs only a second copy in the spool: the set is cleared when it grows too big
 * (then true).
 */
function remember(set: Set<string>, hashes: ReadonlyArray<string>, max: number): boolean {
  const cleared = set.size > max;
  if (cleared) set.clear();
  for (const hash of hashes) set.add(hash);
  return cleared;
}
