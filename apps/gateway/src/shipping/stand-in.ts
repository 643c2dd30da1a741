import {
  type ApiClient,
  ApiError,
  MAX_STAND_IN_MESSAGE,
  RECEIPT_STAND_IN_SCHEMA,
  type ReceiptIngestResult,
  ReceiptStandIn,
} from '@toolgate/contract';
import { boundedText, illFormedPath, isWellFormedString } from '@toolgate/core';
import type { Logger } from 'pino';
import type { EncodedReceipt } from '../receipts/spooled-receipt.ts';
import type { QuarantinedReceipt } from './quarantine.ts';

/**
 * HTTP statuses with which the API refuses what a batch holds, not the gateway or the moment:
 * malformed (400), too large for its body limit (413), invalid (422). A batch of several
 * receipts refused so is split until the receipt at fault is alone; that one is quarantined.
 * Everything else — network errors, 5xx, 408, 429, and 401/403/404 (the gateway's token or
 * name is wrong, which no receipt can fix) — is retried with backoff.
 */
const CONTENT_REFUSED = new Set([400, 413, 422]);

export function refusesContent(error: unknown): error is ApiError {
  return error instanceof ApiError && CONTENT_REFUSED.has(error.httpStatus);
}

/** The reason to quarantine under when a batch of one is refused whole. */
export function refusalReason(error: ApiError): string {
  const reason = error.status.reason;
  return typeof reason === 'string' && REASON.test(reason) ? reason : `Http${error.httpStatus}`;
}

const REASON = /^[A-Z][A-Za-z0-9]{0,63}$/;
const CHAIN_HASH = /^sha256:[0-9a-f]{64}$/;

/**
 * The stand-in the API links in place of a quarantined receipt (docs/receipts.md): its id,
 * `prev_hash` and hash, why it was refused and how big it is — never its content, so it is
 * accepted however bad the receipt was. Undefined when the receipt is too broken to say where it
 * sits in the chain (not JSON, no valid `prev_hash`): then the chain cannot go on past it.
 */
export function standInFor(
  gateway: string,
  record: EncodedReceipt,
  refusal: { reason: string; message?: string; bytes: number; quarantinedAt: string },
): ReceiptStandIn | undefined {
  let receipt: { prev_hash?: unknown; timestamps?: { received_at?: unknown } };
  try {
    receipt = JSON.parse(record.receiptJson.toString('utf8'));
  } catch {
    return undefined;
  }
  const prev = receipt?.prev_hash;
  if (prev !== null && (typeof prev !== 'string' || !CHAIN_HASH.test(prev))) return undefined;
  const receivedAt = receipt.timestamps?.received_at;
  const standIn = {
    schema: RECEIPT_STAND_IN_SCHEMA,
    id: record.id,
    gateway,
    received_at:
      typeof receivedAt === 'string' && isTimestamp(receivedAt)
        ? receivedAt
        : refusal.quarantinedAt,
    prev_hash: prev,
    hash: record.hash,
    held: {
      reason: REASON.test(refusal.reason) ? refusal.reason : 'Refused',
      ...(refusal.message && isWellFormedString(refusal.message)
        ? { message: boundedText(refusal.message, MAX_STAND_IN_MESSAGE) }
        : {}),
      bytes: refusal.bytes,
      quarantined_at: refusal.quarantinedAt,
    },
  };
  // What the API would refuse (an id or hash the gateway never makes) is not sent at all.
  const parsed = ReceiptStandIn.safeParse(standIn);
  if (!parsed.success || illFormedPath(parsed.data) !== undefined) return undefined;
  return parsed.data;
}

function isTimestamp(text: string): boolean {
  return ReceiptStandIn.shape.received_at.safeParse(text).success;
}

/** What shipping a stand-in needs from the shipper. */
export interface StandInShipping {
  client: ApiClient;
  gateway: string;
  log: Pick<Logger, 'error'>;
  signal: AbortSignal;
}

/**
 * Ships the stand-in that takes a quarantined receipt's place in the API's chain, with the
 * tool sets the receipt carried (later receipts reference them); without them if they are
 * what the API refuses. Returns whether the API linked it.
 */
export async function linkStandIn(
  { client, gateway, log, signal }: StandInShipping,
  item: EncodedReceipt & { seq: number },
  entry: QuarantinedReceipt,
): Promise<boolean> {
  const standIn = standInFor(gateway, item, {
    reason: entry.reason,
    ...(entry.message !== undefined ? { message: entry.message } : {}),
    bytes: entry.bytes ?? 0,
    quarantinedAt: entry.quarantinedAt,
  });
  const fields = { receiptId: item.id, seq: item.seq, reason: entry.reason };
  if (standIn === undefined) {
    log.error(fields, 'a quarantined receipt has no readable place in the chain; no stand-in');
    return false;
  }
  const ship = (withToolSets: boolean) =>
    client.call('receipts.ingest', {
      params: { name: gateway },
      body: { receipts: [standIn], ...(withToolSets ? { tool_sets: item.toolSets } : {}) },
      signal,
    });
  const hasToolSets = Object.keys(item.toolSets).length > 0;
  let answer: { results: ReceiptIngestResult[] };
  try {
    answer = await ship(hasToolSets);
  } catch (error) {
    // The stand-in alone is a few hundred valid bytes: if even that is refused, the API (or
    // something in front of it) is what is wrong, and the shipment is retried.
    if (!hasToolSets || !refusesContent(error)) throw error;
    answer = await ship(false);
  }
  const result = answer.results[0];
  if (result?.result === 'created' || result?.result === 'duplicate') return true;
  log.error(
    { ...fields, standIn: result?.reason, error: result?.message },
    'the API refused the stand-in of a quarantined receipt; the receipts after it may not chain',
  );
  return false;
}
