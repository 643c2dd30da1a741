import { Inject, Injectable } from '@nestjs/common';
import {
  RECEIPT_STAND_IN_SCHEMA,
  type ReceiptIngestResult,
  ReceiptStandIn,
} from '@toolgate/contract';
import {
  ConflictError,
  canonicalizeParsed,
  expandReceipt,
  hashString,
  issuesToCauses,
  type Receipt,
  ReceiptV1,
  readOnlyCheck,
  receiptHashAndJson,
  StoredReceipt,
  safeParseReadOnly,
  ToolSet,
} from '@toolgate/core';
import type { z } from 'zod';
import { receiptColumns } from './receipt-columns.ts';
import { toolLinksOf } from './receipt-tool-links.ts';
import {
  type ChainChunk,
  type ChainState,
  type NewReceiptRow,
  type NewStandInRow,
  ReceiptIdTakenError,
  ReceiptsRepository,
} from './receipts.repository.ts';

/** A stand-in for a receipt the gateway quarantined: a link without a body. */
type StandInItem = { ok: true; standIn: ReceiptStandIn };

/** An item of a batch after the checks that need no database. */
type CheckedItem =
  | { ok: false; result: ReceiptIngestResult }
  | { ok: true; receipt: StoredReceipt | ReceiptV1; body: string }
  | StandInItem;

/** An item ready to link: its receipt in the served form (for the columns) and as stored. */
type ResolvedItem =
  | { ok: false; result: ReceiptIngestResult }
  | { ok: true; receipt: Receipt; hash: string; body: string; toolSetHash: string | null }
  | StandInItem;

/**
 * The schemas' verdicts without zod's copy of every object: a valid item is checked by reading
 * it only (most are), an invalid one is parsed by zod for its issues, so the message names the
 * field exactly as before (read-only-check.test.ts proves both accept the same inputs). A valid
 * item is then used as sent, unknown members included: only declared fields are read off it.
 */
const isStoredReceipt = readOnlyCheck(StoredReceipt);
const isReceiptV1 = readOnlyCheck(ReceiptV1);
const isToolSet = readOnlyCheck(ToolSet);

/** A tool set sent with the batch: valid (with its canonical JSON), or why not. */
type SentToolSet = { ok: true; toolSet: ToolSet; json: string } | { ok: false; message: string };

/**
 * Batch ingest of a gateway's receipts (SPEC §3). Every item gets its own result, in input
 * order, so a gateway can drop from its spool exactly what was acknowledged:
 *
 * - `created`: stored as the next link of the gateway's chain;
 * - `duplicate`: that id is already stored with the same hash — a retry, nothing written;
 * - `rejected` with a reason: `Invalid` (schema, wrong gateway, a tool set neither stored nor
 *   sent valid), `HashMismatch` (the hash is not the receipt's), `Conflict` (the id is stored
 *   with another hash), `ChainBroken` (`prev_hash` is not the chain's head; every later new item
 *   of the batch is rejected too, since the chain cannot continue past a missing link).
 *
 * An item may also be a {@link ReceiptStandIn}: the link of a receipt the API refused for good,
 * whose body the gateway keeps in its quarantine file. It is checked against the chain like a
 * receipt (id, `prev_hash`) and stored as a link only (`receipt_links.stand_in`), so the
 * receipts after it continue the chain instead of all being `ChainBroken`.
 *
 * A `toolgate.receipt.v2` receipt references its tool set by `tool_set_hash`; the set is either
 * stored already or sent with the batch (`tool_sets`). Every valid set sent is stored before the
 * batch's transaction commits (by a statement of its own, beside it), whatever becomes of the
 * receipts (a gateway sends each set once, with the first receipt using it, and later receipts
 * rely on it), so every stored receipt resolves.
 */
@Injectable()
export class ReceiptIngestService {
  /** Tool-set hashes this process has seen stored (committed): their sets skip the schema. */
  private readonly storedToolSets = new RecentHashes(KNOWN_TOOL_SETS);

  constructor(@Inject(ReceiptsRepository) private readonly receipts: ReceiptsRepository) {}

  async ingest(
    gateway: string,
    items: ReadonlyArray<unknown>,
    toolSets: Readonly<Record<string, unknown>> = {},
  ): Promise<ReceiptIngestResult[]> {
    // Which ids may be stored already and which tool sets to look up are read off the items
    // as sent, unchecked (a lookup only): the checks themselves run chunk by chunk below.
    const unknown = new Set<string>();
    const ids = new Set<string>();
    for (const item of items) {
      const id = itemId(item);
      if (id !== '') ids.add(id);
      const hash = (item as { tool_set_hash?: unknown } | null)?.tool_set_hash;
      if (typeof hash === 'string' && !Object.hasOwn(toolSets, hash)) unknown.add(hash);
    }
    // A gateway sends each set again after it restarts, and a fleet's gateways send the same
    // sets: one that is stored already is only hashed (its canonical text must hash to the name
    // it was sent under, which is a set that passed the schema when it was stored), not checked
    // against the schema again.
    const sentHashes = Object.keys(toolSets);
    const { storedSent, bodies: stored } = await this.receipts.toolSetsOfBatch(
      sentHashes.filter((hash) => !this.storedToolSets.has(hash)),
      [...unknown],
    );
    const sent = new Map<string, SentToolSet>();
    const newToolSets = new Map<string, string>();
    for (const hash of sentHashes) {
      const known = storedSent.has(hash) || this.storedToolSets.has(hash);
      const checked = (known ? checkStoredToolSet : checkToolSet)(hash, toolSets[hash]);
      sent.set(hash, checked);
      // Written all the same: the insert skips stored sets before parsing their JSON, and a set
      // remembered here but gone from the database (restored from a backup) comes back.
      if (checked.ok) newToolSets.set(hash, checked.json);
    }
    try {
      const results = await this.receipts.appendToChain(gateway, [...ids], newToolSets, (state) =>
        linkBatch(
          gateway,
          items,
          (item) => resolveItem(checkItem(gateway, item), sent, stored),
          state,
        ),
      );
      // Committed: every valid set sent is stored now, as is every set found stored.
      for (const [hash, checked] of sent) if (checked.ok) this.storedToolSets.add(hash);
      for (const hash of stored.keys()) this.storedToolSets.add(hash);
      return results;
    } catch (error) {
      if (error instanceof ReceiptIdTakenError) {
        throw new ConflictError('Receipt', gateway, `${error.message}; retry the batch`);
      }
      throw error;
    }
  }
}

function checkItem(gateway: string, item: unknown): CheckedItem {
  const id = itemId(item);
  const rejected = (reason: string, message: string): CheckedItem => ({
    ok: false,
    result: { id, result: 'rejected', reason, message },
  });
  const schema = (item as { schema?: unknown } | null)?.schema;
  if (schema === RECEIPT_STAND_IN_SCHEMA) return checkStandIn(gateway, item);
  const legacy = schema === 'toolgate.receipt.v1';
  if (!legacy && typeof item === 'object' && item !== null) {
    for (const inline of ['tools', 'wardwright_tool_mediation']) {
      if (inline in item) {
        return rejected(
          'Invalid',
          `${inline}: a toolgate.receipt.v2 receipt references its tool set by tool_set_hash instead`,
        );
      }
    }
  }
  const parsed = legacy
    ? safeParseReadOnly(ReceiptV1, isReceiptV1, item)
    : safeParseReadOnly(StoredReceipt, isStoredReceipt, item);
  if (!parsed.success) return rejected('Invalid', describeIssues(parsed.error));
  const receipt = parsed.data;
  if (receipt.gateway !== gateway) {
    return rejected('Invalid', `gateway: must be "${gateway}", the gateway posting it`);
  }
  // The item as sent (unknown fields included) is what the gateway hashed and what is stored,
  // so verifying the stored body later checks exactly what was acknowledged.
  // One serialization serves both: the canonical text is hashed, and stored (with `hash`).
  let actual: string;
  let body: string;
  try {
    ({ hash: actual, json: body } = receiptHashAndJson(item as StoredReceipt));
  } catch (error) {
    return rejected('Invalid', `(root): cannot be hashed: ${(error as Error).message}`);
  }
  if (actual !== receipt.hash) {
    return rejected('HashMismatch', `hash: is ${receipt.hash}, the receipt hashes to ${actual}`);
  }
  if (body.includes('\\u0000')) {
    return rejected('Invalid', '(root): strings must not contain U+0000');
  }
  return { ok: true, receipt, body };
}

function checkStandIn(gateway: string, item: unknown): CheckedItem {
  const rejected = (message: string): CheckedItem => ({
    ok: false,
    result: { id: itemId(item), result: 'rejected', reason: 'Invalid', message },
  });
  const parsed = ReceiptStandIn.safeParse(item);
  if (!parsed.success) return rejected(describeIssues(parsed.error));
  if (parsed.data.gateway !== gateway) {
    return rejected(`gateway: must be "${gateway}", the gateway posting it`);
  }
  // PostgreSQL's jsonb cannot hold U+0000 (the stand-in is stored as jsonb).
  if (JSON.stringify(parsed.data).includes('\\u0000')) {
    return rejected('(root): strings must not contain U+0000');
  }
  return { ok: true, standIn: parsed.data };
}

/** What every linkable item has: its id and its place in the chain. */
function linkOf(item: StandInItem | Extract<ResolvedItem, { receipt: Receipt }>): {
  id: string;
  hash: string;
  prevHash: string | null;
} {
  if ('standIn' in item) {
    const { id, hash, prev_hash } = item.standIn;
    return { id, hash, prevHash: prev_hash };
  }
  return { id: item.receipt.id, hash: item.hash, prevHash: item.receipt.prev_hash };
}

/** A tool set sent with the batch must be one and be filed under its own canonical hash. */
function checkToolSet(hash: string, value: unknown): SentToolSet {
  const field = `tool_sets["${hash}"]`;
  const parsed = safeParseReadOnly(ToolSet, isToolSet, value);
  if (!parsed.success) {
    return { ok: false, message: describeIssues(parsed.error, ['tool_sets', hash]) };
  }
  let json: string;
  try {
    // The canonical text is both what is hashed and what is stored (jsonb keeps no key order).
    json = canonicalizeParsed(value);
    const actual = hashString(json);
    if (actual !== hash) {
      return { ok: false, message: `${field}: its content hashes to ${actual}` };
    }
  } catch (error) {
    return { ok: false, message: `${field}: cannot be hashed: ${(error as Error).message}` };
  }
  if (json.includes('\\u0000')) {
    return { ok: false, message: `${field}: strings must not contain U+0000` };
  }
  return { ok: true, toolSet: parsed.data, json };
}

/**
 * A sent set filed under the hash of a set stored already: if its canonical text hashes to that
 * name it is that set, which passed the schema when it was stored, so only the hash is checked.
 */
function checkStoredToolSet(hash: string, value: unknown): SentToolSet {
  const field = `tool_sets["${hash}"]`;
  let json: string;
  try {
    json = canonicalizeParsed(value);
  } catch (error) {
    return { ok: false, message: `${field}: cannot be hashed: ${(error as Error).message}` };
  }
  const actual = hashString(json);
  if (actual !== hash) return { ok: false, message: `${field}: its content hashes to ${actual}` };
  return { ok: true, toolSet: value as ToolSet, json };
}

/** How many stored tool-set hashes each API process remembers (~100 B each). */
const KNOWN_TOOL_SETS = 50_000;

/** A bounded set of recently seen hashes, the oldest forgotten first. */
class RecentHashes {
  private readonly hashes = new Set<string>();
  constructor(private readonly capacity: number) {}

  has(hash: string): boolean {
    return this.hashes.has(hash);
  }

  add(hash: string): void {
    if (this.hashes.has(hash)) {
      this.hashes.delete(hash); // to the newest end
    } else if (this.hashes.size >= this.capacity) {
      const oldest = this.hashes.values().next().value;
      if (oldest !== undefined) this.hashes.delete(oldest);
    }
    this.hashes.add(hash);
  }
}

/** Puts a v2 receipt's tool set back in (for its columns); v1 receipts carry theirs. */
function resolveItem(
  item: CheckedItem,
  sent: ReadonlyMap<string, SentToolSet>,
  stored: ReadonlyMap<string, ToolSet>,
): ResolvedItem {
  if (!item.ok || 'standIn' in item) return item;
  const { receipt, body } = item;
  // By its schema, not by a `tool_set_hash` member: a v1 receipt is used as sent, and one with an
  // unknown `tool_set_hash` (zod used to strip it) is still a v1 receipt, its tool set inline.
  if (receipt.schema === 'toolgate.receipt.v1') {
    return {
      ok: true,
      receipt: receipt as unknown as Receipt,
      hash: receipt.hash,
      body,
      toolSetHash: null,
    };
  }
  const toolSetHash = receipt.tool_set_hash;
  const fromBatch = sent.get(toolSetHash);
  if (fromBatch !== undefined && !fromBatch.ok) {
    return rejectedItem(
      receipt.id,
      `tool_set_hash: the tool set sent for it is invalid: ${fromBatch.message}`,
    );
  }
  const toolSet = fromBatch?.toolSet ?? stored.get(toolSetHash);
  if (toolSet === undefined) {
    return rejectedItem(
      receipt.id,
      `tool_set_hash: no tool set ${toolSetHash} is stored, and the batch's tool_sets do not have it`,
    );
  }
  return {
    ok: true,
    receipt: expandReceipt(receipt, toolSet),
    hash: receipt.hash,
    body,
    toolSetHash,
  };
}

function rejectedItem(id: string, message: string): ResolvedItem {
  return { ok: false, result: { id, result: 'rejected', reason: 'Invalid', message } };
}

function describeIssues(error: z.ZodError, prefix: ReadonlyArray<PropertyKey> = []): string {
  return issuesToCauses(error.issues, prefix)
    .map((cause) => `${cause.field}: ${cause.message}`)
    .join('; ');
}

function itemId(item: unknown): string {
  const id = (item as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : '';
}

/** Items checked, decided and written per chunk: PostgreSQL writes one while the next is checked. */
const CHUNK = 200;

/**
 * Checks (parsing and hashing, the expensive part) and decides each item against the chain as
 * stored, under the gateway's chain lock, yielding the rows to write chunk by chunk.
 */
function* linkBatch(
  gateway: string,
  items: ReadonlyArray<unknown>,
  check: (item: unknown) => ResolvedItem,
  state: ChainState,
): Generator<ChainChunk, ReceiptIngestResult[], void> {
  let rows: NewReceiptRow[] = [];
  let standIns: NewStandInRow[] = [];
  const results: ReceiptIngestResult[] = [];
  const known = new Map(state.stored);
  let head = state.head;
  let brokenAt: string | undefined;
  for (const [index, sentItem] of items.entries()) {
    if (index > 0 && index % CHUNK === 0) {
      yield { rows, standIns };
      rows = [];
      standIns = [];
    }
    const item = check(sentItem);
    if (!item.ok) {
      results.push(item.result);
      continue;
    }
    const { id, hash, prevHash } = linkOf(item);
    const storedHash = known.get(id);
    if (storedHash !== undefined) {
      results.push(
        storedHash === hash
          ? { id, result: 'duplicate' }
          : {
              id,
              result: 'rejected',
              reason: 'Conflict',
              message: `receipt "${id}" is already stored with hash ${storedHash}`,
            },
      );
      continue;
    }
    if (brokenAt !== undefined) {
      results.push({
        id,
        result: 'rejected',
        reason: 'ChainBroken',
        message: `the chain broke at receipt "${brokenAt}" earlier in this batch`,
      });
      continue;
    }
    const expectedPrev = head?.hash ?? null;
    if (prevHash !== expectedPrev) {
      brokenAt = id;
      const chainEnd = head
        ? `ends at seq ${head.seq} with ${head.hash}`
        : 'is empty (prev_hash must be null)';
      const actual = prevHash ?? 'null';
      results.push({
        id,
        result: 'rejected',
        reason: 'ChainBroken',
        message: `prev_hash: is ${actual}, but the chain of gateway "${gateway}" ${chainEnd}`,
      });
      continue;
    }
    const seq = (head?.seq ?? 0n) + 1n;
    if ('standIn' in item) {
      const { standIn } = item;
      standIns.push({ id, seq, receivedAt: standIn.received_at, hash, standIn });
    } else {
      const columns = receiptColumns(item.receipt);
      const toolLinks = toolLinksOf(item.receipt);
      rows.push({ ...columns, seq, body: item.body, toolSetHash: item.toolSetHash, toolLinks });
    }
    results.push({ id, result: 'created' });
    known.set(id, hash);
    head = { seq, hash };
  }
  yield { rows, standIns };
  return results;
}
