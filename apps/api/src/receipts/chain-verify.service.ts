import { Inject, Injectable } from '@nestjs/common';
import type { ChainFinding, ChainVerification } from '@toolgate/contract';
import { checkStoredToolSet, ReceiptChainStatus, type StoredToolSetCheck } from '@toolgate/core';
import { ResourceStore } from '../resources/resource-store.service.ts';
import {
  checkHashes,
  checkLinkColumns,
  checkListColumns,
  checkToolSet,
  type Finding,
  missingReceiptFinding,
  standInMismatch,
} from './chain-findings.ts';
import { type ChainLinkRow, ChainLinksRepository } from './chain-links.repository.ts';

/** Rows per read: bounded memory however long the chain is. */
const PAGE = 1000;
/** Held (stand-in) links listed in a verification; all are counted. */
const HELD_LISTED = 100;
/** Verified tool sets kept between pages; past this the cache starts over (memory stays flat). */
const TOOL_SET_CACHE = 2000;

/** A link verified so far: what the next one must point to. */
interface Verified {
  seq: bigint;
  id: string;
  hash: string;
}

/** A hash recorded outside the database earlier (a previous verify's `head`). */
export interface ChainAnchor {
  seq: bigint;
  hash: string;
}

/**
 * Verifies a gateway's stored chain on demand (SPEC §3 tamper evidence; §8: every byte an
 * auditor is shown is covered). Walks the chain's links in seq order a page at a time and, for
 * each receipt: its body hashes to every stored copy of its hash; it links to the receipt before
 * it; it sits where its link says; its tool set hashes to the address the body names (once per
 * tool set per run); and every list column is what the body derives. It stops at the first
 * altered receipt and names it: a single rewritten receipt is located at itself even when every
 * copy of its hash was recomputed, because its successor still links to the original.
 */
@Injectable()
export class ChainVerifyService {
  constructor(
    @Inject(ChainLinksRepository) private readonly links: ChainLinksRepository,
    @Inject(ResourceStore) private readonly store: ResourceStore,
  ) {}

  async verify(gateway: string, anchor?: ChainAnchor): Promise<ChainVerification> {
    const toolSets = new Map<string, StoredToolSetCheck>();
    const held = { count: 0, links: [] as Array<{ seq: string; id: string; reason: string }> };
    const withHeld = (result: ChainVerification): ChainVerification =>
      held.count > 0 ? { ...result, held } : result;
    let previous: Verified | undefined;
    for (;;) {
      const page = await this.links.page(gateway, previous?.seq ?? 0n, PAGE);
      await this.loadToolSets(page, toolSets);
      for (const link of page) {
        const broken = await this.checkLink(gateway, link, previous, toolSets);
        if (broken === 'held') {
          held.count++;
          if (held.links.length < HELD_LISTED) held.links.push(heldLink(link));
        } else if (broken) return withHeld({ gateway, valid: false, ...broken });
        if (anchor && link.seq === anchor.seq && link.hash !== anchor.hash) {
          const firstBreak = anchorMismatch(link, anchor);
          return withHeld({ gateway, valid: false, checked: 0, firstBreak });
        }
        previous = { seq: link.seq, id: link.id, hash: link.hash };
      }
      if (page.length < PAGE) break;
    }
    const length = previous?.seq ?? 0n;
    if (anchor && length < anchor.seq) {
      return withHeld({ gateway, valid: false, checked: 0, firstBreak: truncated(length, anchor) });
    }
    const reported = await this.reportedHead(gateway);
    if (reported && !(await this.links.linkWithHash(gateway, reported.head.hash))) {
      const firstBreak = behindGateway(length, reported);
      return withHeld({ gateway, valid: false, checked: Number(length), firstBreak });
    }
    return withHeld({
      gateway,
      valid: true,
      checked: Number(length),
      ...(previous ? { head: { ...previous, seq: previous.seq.toString() } } : {}),
    });
  }

  /**
   * One link, after `previous` (verified). The body's hash first: every later check trusts only
   * a body that hashes right. Then the link to the previous receipt, before anything else of
   * this one, so a rewritten previous receipt is found before an edit further on.
   */
  private async checkLink(
    gateway: string,
    link: ChainLinkRow,
    previous: Verified | undefined,
    toolSets: ReadonlyMap<string, StoredToolSetCheck>,
  ): Promise<{ checked: number; firstBreak: ChainFinding } | 'held' | undefined> {
    const expectedSeq = (previous?.seq ?? 0n) + 1n;
    const here = (finding: Finding) => ({
      checked: Number(expectedSeq - 1n),
      firstBreak: { seq: link.seq.toString(), id: link.id, ...finding },
    });
    if (link.seq !== expectedSeq) {
      return {
        checked: Number(expectedSeq - 1n),
        firstBreak: {
          seq: expectedSeq.toString(),
          id: null,
          reason: 'seq_gap',
          expected: expectedSeq.toString(),
          actual: link.seq.toString(),
          message: `no receipt is linked at seq ${expectedSeq} (deleted, link and all)`,
        },
      };
    }
    const row = link.receipt;
    if (row === null && link.standIn !== null) {
      const mismatch = standInMismatch(link, previous?.hash ?? null);
      return mismatch ? here(mismatch) : 'held';
    }
    if (row === null)
      return here(missingReceiptFinding(link, await this.links.receivedAtOf(link.id)));
    const hashes = checkHashes(link, row);
    if (!hashes.ok) return here(hashes.finding);
    const body = hashes.verified.body;
    const prevHash = typeof body.prev_hash === 'string' ? body.prev_hash : null;
    if (prevHash !== (previous?.hash ?? null)) {
      return this.brokenLink(gateway, link, previous, prevHash);
    }
    const misplaced = checkLinkColumns(gateway, link, row, hashes.verified);
    if (misplaced) return here(misplaced);
    const served = checkToolSet(row, hashes.verified, (hash) => toolSets.get(hash));
    if (!served.ok) return here(served.finding);
    const column = checkListColumns(gateway, row, served.receipt);
    if (column) return here(column);
    return undefined;
  }

  /**
   * A receipt whose body hashes right but does not link to the receipt before it. Either it was
   * moved (its `prev_hash` is another stored receipt's hash: reordered; located here), or the
   * receipt before it is not the one it was chained to: that one was rewritten with every copy
   * of its hash recomputed (or receipts between were removed and the rest renumbered), so it is
   * the first receipt verify cannot vouch for: located there.
   */
  private async brokenLink(
    gateway: string,
    link: ChainLinkRow,
    previous: Verified | undefined,
    prevHash: string | null,
  ): Promise<{ checked: number; firstBreak: ChainFinding }> {
    const expected = previous?.hash ?? null;
    const linkedTo =
      prevHash === null ? undefined : await this.links.linkWithHash(gateway, prevHash);
    if (previous === undefined || linkedTo !== undefined || prevHash === null) {
      const where =
        linkedTo !== undefined
          ? `the receipt at seq ${linkedTo.seq} (receipts were reordered or moved)`
          : prevHash === null
            ? 'nothing, as only a chain’s first receipt may (receipts were reordered or moved)'
            : 'a receipt that is not stored (receipts before it were removed and the chain renumbered)';
      return {
        checked: Number(link.seq - 1n),
        firstBreak: {
          seq: link.seq.toString(),
          id: link.id,
          reason: 'prev_hash_mismatch',
          expected,
          actual: prevHash,
          message: `it links to ${where}`,
        },
      };
    }
    return {
      checked: Number(previous.seq - 1n),
      firstBreak: {
        seq: previous.seq.toString(),
        id: previous.id,
        reason: 'successor_mismatch',
        expected: prevHash,
        actual: previous.hash,
        message: `the next receipt (seq ${link.seq}) links to another hash, which no stored receipt has: this receipt was rewritten with its hashes recomputed (or receipts after it were removed and the chain renumbered)`,
      },
    };
  }

  /**
   * The chain head the gateway itself reported in `Gateway.status` (what the API acknowledged
   * to it), if any and well-formed: a second witness of how long the chain is.
   */
  private async reportedHead(gateway: string): Promise<ReceiptChainStatus | undefined> {
    const object = await this.store.find('Gateway', gateway);
    const reported = (object?.status as { receiptChain?: unknown } | undefined)?.receiptChain;
    const parsed = ReceiptChainStatus.safeParse(reported);
    return parsed.success ? parsed.data : undefined;
  }

  /** Reads and re-hashes the tool sets a page references that this run has not checked yet. */
  private async loadToolSets(
    page: ReadonlyArray<ChainLinkRow>,
    checked: Map<string, StoredToolSetCheck>,
  ): Promise<void> {
    if (checked.size > TOOL_SET_CACHE) checked.clear();
    const wanted = new Set<string>();
    for (const link of page) {
      const hash = (link.receipt?.body as { tool_set_hash?: unknown } | null)?.tool_set_hash;
      if (typeof hash === 'string' && !checked.has(hash)) wanted.add(hash);
    }
    if (wanted.size === 0) return;
    const stored = await this.links.toolSets([...wanted]);
    for (const hash of wanted) {
      if (stored.has(hash)) checked.set(hash, checkStoredToolSet(hash, stored.get(hash)));
    }
  }
}

function heldLink(link: ChainLinkRow): { seq: string; id: string; reason: string } {
  const reason = link.standIn?.held?.reason;
  return {
    seq: link.seq.toString(),
    id: link.id,
    reason: typeof reason === 'string' ? reason : 'unknown',
  };
}

function anchorMismatch(link: ChainLinkRow, anchor: ChainAnchor): ChainFinding {
  return {
    seq: link.seq.toString(),
    id: link.id,
    reason: 'anchor_mismatch',
    expected: anchor.hash,
    actual: link.hash,
    message: `the chain up to seq ${anchor.seq} is not the one anchored: it was rewritten, from this receipt or an earlier one`,
  };
}

function behindGateway(length: bigint, reported: ReceiptChainStatus): ChainFinding {
  return {
    seq: (length + 1n).toString(),
    id: null,
    reason: 'truncated',
    field: 'Gateway.status.receiptChain',
    expected: reported.head.hash,
    actual: length.toString(),
    message: `the gateway reports receipt ${reported.head.id} (acknowledged ${reported.acknowledgedAt}) as its chain's newest, which the stored chain (${length} receipts) does not hold: receipts were deleted from its end`,
  };
}

function truncated(length: bigint, anchor: ChainAnchor): ChainFinding {
  return {
    seq: (length + 1n).toString(),
    id: null,
    reason: 'truncated',
    expected: anchor.seq.toString(),
    actual: length.toString(),
    message: `the chain ends at seq ${length}, before the anchor at seq ${anchor.seq}: receipts from seq ${length + 1n} on were deleted`,
  };
}
