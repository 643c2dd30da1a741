import { Inject, Injectable } from '@nestjs/common';
import type { ReceiptIngestResult } from '@toolgate/contract';
import { ConflictError, formatFieldPath, Receipt, receiptHashAndJson } from '@toolgate/core';
import { receiptColumns } from './receipt-columns.ts';
import {
  type ChainState,
  type NewReceiptRow,
  ReceiptIdTakenError,
  ReceiptsRepository,
} from './receipts.repository.ts';

/** An item of a batch after the checks that need no database. */
type CheckedItem =
  | { ok: false; result: ReceiptIngestResult }
  | { ok: true; receipt: Receipt; body: string };

/**
 * Batch ingest of a gateway's receipts (SPEC §3). Every item gets its own result, in input
 * order, so a gateway can drop from its spool exactly what was acknowledged:
 *
 * - `created`: stored as the next link of the gateway's chain;
 * - `duplicate`: that id is already stored with the same hash — a retry, nothing written;
 * - `rejected` with a reason: `Invalid` (schema, wrong gateway), `HashMismatch` (the hash is
 *   not the receipt's), `Conflict` (the id is stored with another hash), `ChainBroken`
 *   (`prev_hash` is not the chain's head; every later new item of the batch is rejected too,
 *   since the chain cannot continue past a missing link).
 */
@Injectable()
export class ReceiptIngestService {
  constructor(@Inject(ReceiptsRepository) private readonly receipts: ReceiptsRepository) {}

  async ingest(gateway: string, items: ReadonlyArray<unknown>): Promise<ReceiptIngestResult[]> {
    // Parsing and hashing are the expensive part and need no lock: done before the transaction.
    const checked = items.map((item) => checkItem(gateway, item));
    const ids = [...new Set(checked.flatMap((item) => (item.ok ? [item.receipt.id] : [])))];
    try {
      return await this.receipts.appendToChain(gateway, ids, (state) =>
        linkBatch(gateway, checked, state),
      );
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
  const parsed = Receipt.safeParse(item);
  if (!parsed.success) {
    const causes = parsed.error.issues.map(
      (issue) => `${formatFieldPath(issue.path)}: ${issue.message}`,
    );
    return rejected('Invalid', causes.join('; '));
  }
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
    ({ hash: actual, json: body } = receiptHashAndJson(item as Receipt));
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

function itemId(item: unknown): string {
  const id = (item as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : '';
}

/** Decides each item against the chain as stored, under the gateway's chain lock. */
function linkBatch(
  gateway: string,
  checked: ReadonlyArray<CheckedItem>,
  state: ChainState,
): { rows: NewReceiptRow[]; result: ReceiptIngestResult[] } {
  const rows: NewReceiptRow[] = [];
  const results: ReceiptIngestResult[] = [];
  const known = new Map(state.stored);
  let head = state.head;
  let brokenAt: string | undefined;
  for (const item of checked) {
    if (!item.ok) {
      results.push(item.result);
      continue;
    }
    const { receipt } = item;
    const id = receipt.id;
    const storedHash = known.get(id);
    if (storedHash !== undefined) {
      results.push(
        storedHash === receipt.hash
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
    if (receipt.prev_hash !== expectedPrev) {
      brokenAt = id;
      const chainEnd = head
        ? `ends at seq ${head.seq} with ${head.hash}`
        : 'is empty (prev_hash must be null)';
      const actual = receipt.prev_hash ?? 'null';
      results.push({
        id,
        result: 'rejected',
        reason: 'ChainBroken',
        message: `prev_hash: is ${actual}, but the chain of gateway "${gateway}" ${chainEnd}`,
      });
      continue;
    }
    const seq = (head?.seq ?? 0n) + 1n;
    rows.push({ ...receiptColumns(receipt), seq, body: item.body });
    results.push({ id, result: 'created' });
    known.set(id, receipt.hash);
    head = { seq, hash: receipt.hash };
  }
  return { rows, result: results };
}
