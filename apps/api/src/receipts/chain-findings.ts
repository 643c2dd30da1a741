import type { ChainFinding } from '@toolgate/contract';
import {
  expandReceipt,
  type Receipt,
  type StoredReceipt,
  type StoredToolSetCheck,
  storedReceiptHash,
} from '@toolgate/core';
import type { ChainLinkRow, StoredReceiptRow } from './chain-links.repository.ts';
import { type ReceiptColumns, receiptColumns } from './receipt-columns.ts';

/**
 * The checks of one stored receipt that need nothing but the receipt, its link and its tool
 * set: everything an auditor is shown of it must be what its chained body says. Pure; the
 * chain walk (chain-verify.service.ts) adds the checks between neighbours.
 */

/** What is wrong at a receipt; the walk adds where (`seq`, `id`). */
export type Finding = Omit<ChainFinding, 'seq' | 'id'>;

/** A stored receipt's body with its hash verified: the only source the other checks trust. */
export interface VerifiedBody {
  body: Record<string, unknown>;
  hash: string;
}

const V1 = 'toolgate.receipt.v1';

/**
 * A link without its receipt row. Today that is always tampering (the row was deleted). A link
 * stored without a body by design (a receipt the API refused for good, kept as a stand-in) is
 * the case to add here, as its own finding that is not tampering.
 */
export function missingReceiptFinding(
  link: ChainLinkRow,
  rowReceivedAt: Date | undefined,
): Finding {
  if (rowReceivedAt !== undefined) {
    return {
      reason: 'link_mismatch',
      field: 'received_at',
      expected: null,
      actual: rowReceivedAt.toISOString(),
      message: `the receipt row's received_at is not its link's (the row was edited)`,
    };
  }
  return {
    reason: 'body_missing',
    expected: link.hash,
    actual: null,
    message: 'the link is stored but the receipt is not (the receipt was deleted)',
  };
}

/**
 * A stand-in link (a receipt the gateway quarantined, its body held there) has no content to
 * hash: it must record the link's own hash and continue the chain from the link before it.
 */
export function standInMismatch(
  link: ChainLinkRow,
  previousHash: string | null,
): Finding | undefined {
  const standIn = link.standIn ?? {};
  if (standIn.hash !== link.hash) {
    return {
      reason: 'stand_in_mismatch',
      field: 'hash',
      expected: link.hash,
      actual: typeof standIn.hash === 'string' ? standIn.hash : null,
      message: 'the stand-in for a quarantined receipt does not record its link’s hash',
    };
  }
  const prevHash = typeof standIn.prev_hash === 'string' ? standIn.prev_hash : null;
  if (prevHash === previousHash) return undefined;
  return {
    reason: 'stand_in_mismatch',
    field: 'prev_hash',
    expected: previousHash,
    actual: prevHash,
    message: 'the stand-in for a quarantined receipt does not link to the receipt before it',
  };
}

/**
 * The body must hash to its own `hash`, and every other copy of that hash (the `hash` column,
 * the link's) must be the same: the next link and the next ingest build on them.
 */
export function checkHashes(
  link: ChainLinkRow,
  row: StoredReceiptRow,
): { ok: true; verified: VerifiedBody } | { ok: false; finding: Finding } {
  const recomputed = storedReceiptHash(row.body);
  const body = row.body as Record<string, unknown>;
  const claimed = recomputed === null || typeof body.hash !== 'string' ? null : body.hash;
  if (recomputed === null || recomputed !== claimed) {
    return {
      ok: false,
      finding: {
        reason: 'hash_mismatch',
        field: 'body',
        expected: recomputed,
        actual: claimed,
        message: 'its content does not hash to the hash inside it (the body was edited)',
      },
    };
  }
  for (const [field, copy] of [
    ['receipts.hash', row.hash],
    ['receipt_links.hash', link.hash],
  ] as const) {
    if (copy !== recomputed) {
      return {
        ok: false,
        finding: {
          reason: 'hash_mismatch',
          field,
          expected: recomputed,
          actual: copy,
          message: `its content hashes to another hash than ${field} records (the body was replaced, or ${field} edited)`,
        },
      };
    }
  }
  return { ok: true, verified: { body, hash: recomputed } };
}

/** The stored row must sit where its body says: same id, gateway and place in the chain. */
export function checkLinkColumns(
  gateway: string,
  link: ChainLinkRow,
  row: StoredReceiptRow,
  { body }: VerifiedBody,
): Finding | undefined {
  const checks: Array<[field: string, expected: unknown, actual: unknown]> = [
    ['id', link.id, body.id],
    ['gateway', gateway, body.gateway],
    ['seq', link.seq.toString(), row.seq.toString()],
  ];
  for (const [field, expected, actual] of checks) {
    if (expected !== actual) {
      return {
        reason: 'link_mismatch',
        field,
        expected: text(expected),
        actual: text(actual),
        message: `its ${field} is not its link's (receipts were swapped or moved)`,
      };
    }
  }
  return undefined;
}

/**
 * A v2 body names its tool set by content address; the row's `tool_set_hash` (what reads join
 * on) must be that address, and the set stored under it must hash to it. A v1 body carries its
 * tools inline and references none. Returns the receipt in its served form, or the finding.
 */
export function checkToolSet(
  row: StoredReceiptRow,
  { body }: VerifiedBody,
  lookup: (hash: string) => StoredToolSetCheck | undefined,
): { ok: true; receipt: Receipt } | { ok: false; finding: Finding } {
  const referenced = body.schema === V1 ? null : body.tool_set_hash;
  if (referenced === null) {
    if (row.toolSetHash === null) return { ok: true, receipt: body as unknown as Receipt };
    return { ok: false, finding: columnFinding('tool_set_hash', null, row.toolSetHash) };
  }
  if (typeof referenced !== 'string') {
    // Ingest stores no such receipt; its hash verified, so it was stored that way by hand.
    return { ok: false, finding: columnFinding('tool_set_hash', referenced, row.toolSetHash) };
  }
  if (row.toolSetHash !== referenced) {
    return { ok: false, finding: columnFinding('tool_set_hash', referenced, row.toolSetHash) };
  }
  const stored = lookup(referenced);
  if (stored === undefined) {
    return {
      ok: false,
      finding: {
        reason: 'tool_set_missing',
        field: referenced,
        expected: referenced,
        actual: null,
        message: `its tool set ${referenced} is not stored (deleted)`,
      },
    };
  }
  if (!stored.ok) {
    return {
      ok: false,
      finding: {
        reason: 'tool_set_mismatch',
        field: referenced,
        expected: referenced,
        actual: stored.actual,
        message: `its tool set ${referenced} was edited: the stored content hashes to ${stored.actual ?? 'nothing (not canonical JSON)'}`,
      },
    };
  }
  return { ok: true, receipt: expandReceipt(body as unknown as StoredReceipt, stored.toolSet) };
}

/**
 * The list columns (filters and the receipt list read them) and the overview's `receipt_stats`
 * row, as the body says, in table order.
 */
const LIST_COLUMNS: ReadonlyArray<[column: string, key: keyof ReceiptColumns]> = [
  ['surface', 'surface'],
  ['model', 'model'],
  ['stream', 'stream'],
  ['status', 'status'],
  ['outcome', 'outcome'],
  ['identity_human', 'identityHuman'],
  ['identity_service', 'identityService'],
  ['identity_session', 'identitySession'],
  ['binding', 'binding'],
  ['tools', 'tools'],
  ['rules', 'rules'],
  ['policies', 'policies'],
  ['capabilities', 'capabilities'],
  ['receipt_stats.outcome_class', 'outcomeClass'],
  ['receipt_stats.called_tools', 'calledTools'],
  ['receipt_stats.blocked_calls', 'blockedCalls'],
  ['receipt_stats.withheld_calls', 'withheldCalls'],
  ['receipt_stats.mediation_ms', 'mediationMs'],
  ['receipt_stats.upstream_ms', 'upstreamMs'],
  ['prev_hash', 'prevHash'],
];

/**
 * Every list column must be what ingest derives from the body (the same derivation,
 * `receiptColumns`), and the `gateway` and `received_at` columns likewise, so a filtered list
 * shows only what the chain covers.
 */
export function checkListColumns(
  gateway: string,
  row: StoredReceiptRow,
  receipt: Receipt,
): Finding | undefined {
  let derived: ReceiptColumns;
  try {
    derived = receiptColumns(receipt);
  } catch {
    return {
      reason: 'column_mismatch',
      field: 'body',
      expected: null,
      actual: null,
      message: 'its body is not a receipt the list columns can be derived from',
    };
  }
  if (row.gateway !== gateway) return columnFinding('gateway', gateway, row.gateway);
  if (row.receivedAtMatches !== true) {
    return columnFinding('received_at', derived.receivedAt, row.receivedAt.toISOString());
  }
  for (const [column, key] of LIST_COLUMNS) {
    const expected = text(derived[key]);
    const actual = text((row as unknown as Record<string, unknown>)[key]);
    if (expected !== actual) return columnFinding(column, derived[key], actual);
  }
  return undefined;
}

function columnFinding(column: string, expected: unknown, actual: unknown): Finding {
  return {
    reason: 'column_mismatch',
    field: column,
    expected: text(expected),
    actual: text(actual),
    message: `its ${column} column differs from its body (the list and its filters read the column)`,
  };
}

/** A value as the report shows it: strings as they are, anything else as JSON; null stays null. */
function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
