import { canonicalize, type JsonObject, type StoredReceipt, type ToolSet } from '@toolgate/core';

/**
 * What the spool holds per request: the receipt in its stored form, the tool declarations it
 * references that this process has not handed to the spool before (the shipper PUTs them to the
 * schema store first), and likewise its tool set the first time this process uses it (the
 * shipper sends it with the receipt's batch). So a record's tool set either rides with it or
 * with an earlier record, which ships before it. `hash` is the receipt's, so the spool can
 * recover the chain head.
 */
export interface SpooledReceipt {
  hash: string;
  receipt: StoredReceipt;
  schemas: Record<string, JsonObject>;
  /** Absent in records of gateways from before tool sets. */
  tool_sets?: Record<string, ToolSet>;
}

/** A spooled record as the shipper handles it: the receipt stays JSON bytes, never parsed. */
export interface EncodedReceipt {
  id: string;
  hash: string;
  /** The receipt's UTF-8 JSON, exactly as the gateway wrote it (spliced into the ingest body). */
  receiptJson: Buffer;
  schemas: Record<string, JsonObject>;
  toolSets: Record<string, ToolSet>;
}

/**
 * On-disk layout of a spooled receipt — one JSON object, laid out so the shipper can cut the
 * receipt out without parsing it (receipts of gateways from before tool sets were ~30 KB for 50
 * tools; parsing and re-serializing batches of them stalled the proxy's event loop):
 *
 *   {"rlen":"0000001688","hash":"sha256:…","receipt":<receipt JSON>,"id":"rcpt_…","schemas":{…},
 *    "tool_sets":{…}}
 *
 * `rlen` is the receipt's byte length as a fixed-width string (a JSON number may not have
 * leading zeros). The hash is hex, so the first `,"receipt":` after it is the receipt's start.
 * Still plain JSON: the spool's recovery reads `hash` from it like from any record.
 */
const RLEN_PREFIX = '{"rlen":"';
const RLEN_DIGITS = 10;
const RECEIPT_KEY = ',"receipt":';

/** A receipt to spool: its stored-form JSON and what rides with it. */
export interface SpooledReceiptInput {
  id: string;
  hash: string;
  receiptJson: string;
  schemas: Record<string, JsonObject>;
  toolSets: Record<string, ToolSet>;
}

export function encodeSpooledReceipt(record: SpooledReceiptInput): Buffer {
  return Buffer.concat(spooledReceiptPieces(record));
}

/**
 * The same layout as pieces to write one after the other (the spool writes them with one
 * `pwritev`): nothing is joined here. Tool sets are written in canonical order, as the receipt
 * is, so the API reading them back finds them in that order and needs no sort
 * (`canonicalizeParsed`); a record carries one only the first time this process uses it.
 */
export function spooledReceiptPieces(record: SpooledReceiptInput): Buffer[] {
  const receipt = Buffer.from(record.receiptJson, 'utf8');
  const rlen = String(receipt.length).padStart(RLEN_DIGITS, '0');
  return [
    Buffer.from(
      `${RLEN_PREFIX}${rlen}","hash":${JSON.stringify(record.hash)}${RECEIPT_KEY}`,
      'utf8',
    ),
    receipt,
    Buffer.from(
      `,"id":${JSON.stringify(record.id)},"schemas":${JSON.stringify(record.schemas)},"tool_sets":${canonicalize(record.toolSets)}}`,
      'utf8',
    ),
  ];
}

/** Reads a spooled record; records in plain JSON (`SpooledReceipt`, older gateways) too. */
export function decodeSpooledReceipt(payload: Buffer): EncodedReceipt {
  if (!payload.subarray(0, RLEN_PREFIX.length).equals(Buffer.from(RLEN_PREFIX))) {
    const record = JSON.parse(payload.toString('utf8')) as SpooledReceipt;
    return {
      id: record.receipt.id,
      hash: record.hash,
      receiptJson: Buffer.from(JSON.stringify(record.receipt), 'utf8'),
      schemas: record.schemas ?? {},
      toolSets: record.tool_sets ?? {},
    };
  }
  const keyAt = payload.indexOf(RECEIPT_KEY, RLEN_PREFIX.length + RLEN_DIGITS);
  if (keyAt < 0) throw new SyntaxError('spooled receipt without a "receipt" member');
  const start = keyAt + RECEIPT_KEY.length;
  const head = JSON.parse(`${payload.toString('utf8', 0, keyAt)}}`) as {
    rlen: string;
    hash: string;
  };
  const end = start + Number(head.rlen);
  // The rest is `,"id":…,"schemas":{…},"tool_sets":{…}}`: small, except in the few records that
  // carry a declaration or a tool set this process had not spooled before.
  const tail = JSON.parse(`{${payload.toString('utf8', end + 1)}`) as {
    id: string;
    schemas: Record<string, JsonObject>;
    tool_sets?: Record<string, ToolSet>;
  };
  return {
    id: tail.id,
    hash: head.hash,
    receiptJson: payload.subarray(start, end),
    schemas: tail.schemas,
    toolSets: tail.tool_sets ?? {},
  };
}

/** The record as objects (for the quarantine file, which keeps it readable). */
export function parseSpooledReceipt(encoded: EncodedReceipt): SpooledReceipt {
  return {
    hash: encoded.hash,
    receipt: JSON.parse(encoded.receiptJson.toString('utf8')) as StoredReceipt,
    schemas: encoded.schemas,
    tool_sets: encoded.toolSets,
  };
}

/**
 * `{"receipts":[…],"tool_sets":{…}}` for the ingest route: the receipts by concatenation (one
 * copy, no serialization), and the tool sets the batch's records carry.
 */
export function ingestBody(records: ReadonlyArray<EncodedReceipt>): Buffer<ArrayBuffer> {
  const parts: Buffer[] = [Buffer.from('{"receipts":[')];
  const toolSets: Record<string, ToolSet> = {};
  records.forEach((record, index) => {
    if (index > 0) parts.push(COMMA);
    parts.push(record.receiptJson);
    Object.assign(toolSets, record.toolSets);
  });
  parts.push(Buffer.from(`],"tool_sets":${JSON.stringify(toolSets)}}`));
  return Buffer.concat(parts);
}

const COMMA = Buffer.from(',');
