import { Inject, Injectable } from '@nestjs/common';
import type { ChainVerification } from '@toolgate/contract';
import { type Receipt, receiptHash } from '@toolgate/core';
import { type ChainLinkRow, ReceiptsRepository } from './receipts.repository.ts';

/** Rows per read: bounded memory however long the chain is. */
const PAGE = 1000;

type ChainBreak = NonNullable<ChainVerification['firstBreak']>;

/**
 * Verifies a gateway's stored chain on demand (SPEC §3 tamper evidence): walks it in seq order
 * a page at a time, recomputing every hash from the stored body. It reports the first broken
 * link exactly where it is: an altered receipt (`hash_mismatch`), a deleted one (`seq_gap` at
 * the receipt after it), reordered or swapped ones (`prev_hash_mismatch`).
 */
@Injectable()
export class ChainVerifyService {
  constructor(@Inject(ReceiptsRepository) private readonly receipts: ReceiptsRepository) {}

  async verify(gateway: string): Promise<ChainVerification> {
    let expectedSeq = 1n;
    let expectedPrev: string | null = null;
    let checked = 0;
    for (;;) {
      const page = await this.receipts.chainPage(gateway, expectedSeq - 1n, PAGE);
      for (const link of page) {
        const firstBreak = checkLink(link, expectedSeq, expectedPrev);
        if (firstBreak) return { gateway, valid: false, checked, firstBreak };
        checked++;
        expectedSeq = link.seq + 1n;
        expectedPrev = link.hash;
      }
      if (page.length < PAGE) return { gateway, valid: true, checked };
    }
  }
}

function checkLink(
  link: ChainLinkRow,
  expectedSeq: bigint,
  expectedPrev: string | null,
): ChainBreak | undefined {
  const at = { seq: link.seq.toString(), id: link.id };
  if (link.seq !== expectedSeq) {
    return { ...at, reason: 'seq_gap', expected: expectedSeq.toString(), actual: at.seq };
  }
  const body = link.body as Partial<Receipt> | null;
  const prev = typeof body?.prev_hash === 'string' ? body.prev_hash : null;
  if (prev !== expectedPrev) {
    return { ...at, reason: 'prev_hash_mismatch', expected: expectedPrev, actual: prev };
  }
  let recomputed: string | null;
  try {
    recomputed = receiptHash(body as Receipt);
  } catch {
    recomputed = null;
  }
  // The body's own `hash` is what the gateway signed off; the `hash` column is what the next
  // link and the next ingest build on. Both must be what the content hashes to.
  const claimed = typeof body?.hash === 'string' ? body.hash : null;
  if (recomputed === null || recomputed !== claimed || claimed !== link.hash) {
    const actual = claimed !== recomputed ? claimed : link.hash;
    return { ...at, reason: 'hash_mismatch', expected: recomputed, actual };
  }
  return undefined;
}
