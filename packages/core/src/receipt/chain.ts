import { hashCanonical, hashString } from '../hash/hash.ts';
import { canonicalize } from '../json/canonical-json.ts';
import type { Receipt, ReceiptBody } from './receipt-schema.ts';

/** sha256 over the canonical receipt without its own `hash` (but with `prev_hash`). */
export function receiptHash(receipt: ReceiptBody & { prev_hash: string | null }): string {
  const { hash: _ignored, ...rest } = receipt as Receipt;
  return hashCanonical(rest);
}

/**
 * `receiptHash` and the receipt as JSON text from one serialization: its canonical form (the
 * text hashed) with `hash` appended. For the API's ingest, which stores the text.
 */
export function receiptHashAndJson(receipt: Receipt): { hash: string; json: string } {
  const { hash: stated, ...rest } = receipt;
  const canonical = canonicalize(rest);
  return {
    hash: hashString(canonical),
    json: `${canonical.slice(0, -1)},"hash":${JSON.stringify(stated)}}`,
  };
}

/** Links a receipt body to its gateway's chain. */
export function chainReceipt(body: ReceiptBody, prevHash: string | null): Receipt {
  const linked = { ...body, prev_hash: prevHash };
  return { ...linked, hash: receiptHash(linked) };
}

/**
 * `chainReceipt` as JSON text: the canonical text the hash is computed over, with `hash`
 * appended as its last member. Parsing `json` gives exactly the receipt `chainReceipt` returns.
 * The reference form of a spooled receipt: the gateway's hot path builds the same bytes in
 * pieces (`apps/gateway/src/receipts/receipt-bytes.ts`, tested against this).
 */
export function chainReceiptJson(
  body: ReceiptBody,
  prevHash: string | null,
): { hash: string; json: string } {
  const canonical = canonicalize({ ...body, prev_hash: prevHash });
  const hash = hashString(canonical);
  return { hash, json: `${canonical.slice(0, -1)},"hash":${JSON.stringify(hash)}}` };
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
 * Verifies a gateway's receipts in chain order. `startPrevHash` is the hash the first receipt
 * must point to (null for the start of a chain; a known hash when verifying a window).
 */
export function verifyChain(
  receipts: ReadonlyArray<Receipt>,
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
