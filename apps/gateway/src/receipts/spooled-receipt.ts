import type { JsonObject, Receipt } from '@toolgate/core';

/**
 * What the spool holds per request: the receipt, and the tool declarations it references that
 * this process has not yet seen uploaded (the shipper PUTs them to the schema store first).
 * `hash` is the receipt's, so the spool can recover the chain head.
 */
export interface SpooledReceipt {
  hash: string;
  receipt: Receipt;
  schemas: Record<string, JsonObject>;
}

/** A spooled record as the shipper handles it: the receipt stays JSON bytes, never parsed. */
export interface EncodedReceipt {
  id: string;
  hash: string;
  /** The receipt's UTF-8 JSON, exactly as the gateway wrote it (spliced into the ingest body). */
  receiptJson: Buffer;
  schemas: Record<string, JsonObject>;
}

/**
 * On-disk layout of a spooled receipt — one JSON object, laid out so the shipper can cut the
 * receipt out without parsing it (a 50-tool receipt is ~30 KB; parsing and re-serializing
 * batches of them stalled the proxy's event loop):
 *
 *   {"rlen":"0000028688","hash":"sha256:…","receipt":<receipt JSON>,"id":"rcpt_…","schemas":{…}}
 *
 * `rlen` is the receipt's byte length as a fixed-width string (a JSON number may not have
 * leading zeros). The hash is hex, so the first `,"receipt":` after it is the receipt's start.
 * Still plain JSON: the spool's recovery reads `hash` from it like from any record.
 */
const RLEN_PREFIX = '{"rlen":"';
const RLEN_DIGITS = 10;
const RECEIPT_KEY = ',"receipt":';

export function encodeSpooledReceipt(record: {
  id: string;
  hash: string;
  receiptJson: string;
  schemas: Record<string, JsonObject>;
}): Buffer {
  const receipt = Buffer.from(record.receiptJson, 'utf8');
  return Buffer.concat(spooledReceiptPieces({ ...record, receipt: [receipt] }));
}

/**
 * The same layout as pieces to write one after the other (the hot path's receipt comes in
 * pieces, see `chainReceiptBytes`): nothing is joined or copied here.
 */
export function spooledReceiptPieces(record: {
  id: string;
  hash: string;
  /** The receipt's UTF-8 JSON, in pieces. */
  receipt: ReadonlyArray<Buffer>;
  schemas: Record<string, JsonObject>;
}): Buffer[] {
  let length = 0;
  for (const piece of record.receipt) length += piece.length;
  const rlen = String(length).padStart(RLEN_DIGITS, '0');
  return [
    Buffer.from(
      `${RLEN_PREFIX}${rlen}","hash":${JSON.stringify(record.hash)}${RECEIPT_KEY}`,
      'utf8',
    ),
    ...record.receipt,
    Buffer.from(
      `,"id":${JSON.stringify(record.id)},"schemas":${JSON.stringify(record.schemas)}}`,
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
  // The rest is `,"id":…,"schemas":{…}}`: small (declarations only ride with new schemas).
  const tail = JSON.parse(`{${payload.toString('utf8', end + 1)}`) as {
    id: string;
    schemas: Record<string, JsonObject>;
  };
  return {
    id: tail.id,
    hash: head.hash,
    receiptJson: payload.subarray(start, end),
    schemas: tail.schemas,
  };
}

/** The record as objects (for the quarantine file, which keeps it readable). */
export function parseSpooledReceipt(encoded: EncodedReceipt): SpooledReceipt {
  return {
    hash: encoded.hash,
    receipt: JSON.parse(encoded.receiptJson.toString('utf8')) as Receipt,
    schemas: encoded.schemas,
  };
}

/** `{"receipts":[…]}` for the ingest route, by concatenation: one copy, no serialization. */
export function ingestBody(records: ReadonlyArray<EncodedReceipt>): Buffer<ArrayBuffer> {
  const parts: Buffer[] = [Buffer.from('{"receipts":[')];
  records.forEach((record, index) => {
    if (index > 0) parts.push(COMMA);
    parts.push(record.receiptJson);
  });
  parts.push(Buffer.from(']}'));
  return Buffer.concat(parts);
}

const COMMA = Buffer.from(',');
