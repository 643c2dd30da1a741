import { hashCanonical, hashString, type Sha256Hash } from '../hash/hash.ts';
import { canonicalize } from '../json/canonical-json.ts';
import { canonicalWithLastMember } from '../json/canonical-order.ts';
import type {
  Receipt,
  ReceiptBody,
  ReceiptV1,
  StoredReceipt,
  StoredReceiptBody,
  ToolSet,
} from './receipt-schema.ts';
import { compactReceipt, hasInlineToolSet } from './tool-set.ts';

type Linked<T> = T & { prev_hash: string | null };

/**
 * sha256 over the canonical stored form of the receipt without its own `hash` (but with
 * `prev_hash`). The stored form references the tool set by `tool_set_hash`, so the hash covers
 * the tool set through its content address; a receipt given with its tool set inline (the
 * served form) is hashed as its stored form, so both forms verify alike. A `toolgate.receipt.v1`
 * receipt is hashed as it always was: over all of it, tool set inline.
 */
export function receiptHash(receipt: Linked<ReceiptBody> | Linked<StoredReceiptBody>): Sha256Hash {
  const { hash: _ignored, ...rest } = receipt as Linked<StoredReceiptBody> & { hash?: string };
  if ((rest.schema as string) === 'toolgate.receipt.v1' || !hasInlineToolSet(rest)) {
    return hashCanonical(rest);
  }
  return hashCanonical(compactReceipt(rest as unknown as ReceiptBody).stored);
}

/**
 * `receiptHash` of a stored (or v1) receipt and its JSON text from one serialization: its
 * canonical form (the text hashed) with `hash` appended. For the API's ingest, which stores the
 * text. A receipt parsed from the text our gateways send (that very form: `chainReceiptJson`)
 * is in that order already, and its text is written by `JSON.stringify` (canonical-order.ts).
 */
export function receiptHashAndJson(receipt: StoredReceipt | ReceiptV1): {
  hash: Sha256Hash;
  json: string;
} {
  const ordered = canonicalWithLastMember(receipt, 'hash');
  if (ordered !== undefined) return { hash: hashString(ordered.canonical), json: ordered.json };
  const { hash: stated, ...rest } = receipt;
  const canonical = canonicalize(rest);
  return {
    hash: hashString(canonical),
    json: `${canonical.slice(0, -1)},"hash":${JSON.stringify(stated)}}`,
  };
}

/** Links a receipt body to its gateway's chain (served form: the tool set inline). */
export function chainReceipt(body: ReceiptBody, prevHash: string | null): Receipt {
  const linked = { ...body, prev_hash: prevHash };
  return { ...linked, hash: receiptHash(linked) };
}

/** A chained receipt in its stored form, as JSON text, with the tool set it references. */
export interface ChainedReceiptJson {
  hash: Sha256Hash;
  /** The canonical stored receipt (the text hashed) with `hash` appended as its last member. */
  json: string;
  toolSetHash: string;
  toolSet: ToolSet;
}

/**
 * `chainReceipt` in the form the gateway spools and ships: the stored receipt as canonical JSON
 * text with `hash` appended, and the tool set to store once under `toolSetHash`. Parsing `json`
 * gives `compactReceipt(chainReceipt(body, prevHash)).stored`.
 */
export function chainReceiptJson(body: ReceiptBody, prevHash: string | null): ChainedReceiptJson {
  const { stored, toolSet } = compactReceipt(body);
  const canonical = canonicalize({ ...stored, prev_hash: prevHash });
  const hash = hashString(canonical);
  return {
    hash,
    json: `${canonical.slice(0, -1)},"hash":${JSON.stringify(hash)}}`,
    toolSetHash: stored.tool_set_hash,
    toolSet,
  };
}

export interface ChainBreak {
  /** Position in the list that was verified. */
  index: number;
  id: string;
  /** `hash_mismatch`: the receipt was altered; `prev_hash_mismatch`: one before it is missing or reordered. */
  reason: 'hash_mismatch' | 'prev_hash_mismatch';
  expected: string | null;
  actual: string | null;
}

export interface ChainVerification {
  valid: boolean;
  checked: number;
  /** The first broken link, if any. */
  firstBreak?: ChainBreak;
}

/**
 * Verifies a gateway's receipts in chain order, in either form (served or stored).
 * `startPrevHash` is the hash the first receipt must point to (null for the start of a chain; a
 * known hash when verifying a window).
 */
export function verifyChain(
  receipts: ReadonlyArray<Receipt | StoredReceipt | ReceiptV1>,
  startPrevHash: string | null = null,
): ChainVerification {
  let expectedPrev = startPrevHash;
  for (let index = 0; index < receipts.length; index++) {
    const receipt = receipts[index] as Receipt;
    if (receipt.prev_hash !== expectedPrev) {
      return {
        valid: false,
        checked: index,
        firstBreak: {
          index,
          id: receipt.id,
          reason: 'prev_hash_mismatch',
          expected: expectedPrev,
          actual: receipt.prev_hash,
        },
      };
    }
    const actual = receiptHash(receipt);
    if (actual !== receipt.hash) {
      return {
        valid: false,
        checked: index,
        firstBreak: {
          index,
          id: receipt.id,
          reason: 'hash_mismatch',
          expected: actual,
          actual: receipt.hash,
        },
      };
    }
    expectedPrev = receipt.hash;
  }
  return { valid: true, checked: receipts.length };
}

/**
 * The hash a stored receipt body hashes to (`receiptHash`), or null when it cannot be one (not
 * an object, or not representable as canonical JSON): for verifying bodies read back from a
 * store, where anything may have been written.
 */
export function storedReceiptHash(body: unknown): Sha256Hash | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  try {
    return receiptHash(body as Linked<StoredReceiptBody>);
  } catch {
    return null;
  }
}

/** A tool set read back from a store, checked against the content address it is filed under. */
export type StoredToolSetCheck =
  | { ok: true; toolSet: ToolSet }
  /** `actual`: what the stored content hashes to; null when it cannot be hashed. */
  | { ok: false; actual: Sha256Hash | null };

/**
 * Content addressing makes the hash the check: a stored tool set is the one a receipt references
 * exactly when its content, re-hashed, is the address. Nothing else about it needs trusting.
 */
export function checkStoredToolSet(hash: string, stored: unknown): StoredToolSetCheck {
  let actual: Sha256Hash | null;
  try {
    actual = hashCanonical(stored);
  } catch {
    actual = null;
  }
  return actual === hash ? { ok: true, toolSet: stored as ToolSet } : { ok: false, actual };
}
