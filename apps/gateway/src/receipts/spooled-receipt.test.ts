import { describe, expect, it } from 'vitest';
import {
  decodeSpooledReceipt,
  encodeSpooledReceipt,
  ingestBody,
  parseSpooledReceipt,
} from './spooled-receipt.ts';

const HASH = `sha256:${'ab'.repeat(32)}`;
// Multi-byte text, and a declaration that itself contains the layout's marker strings.
const receipt = { id: 'rcpt_1', model: 'gpt-ünïcode ✓ 🚀', note: ',"receipt":{"x":1}' };
const schemas = {
  [`sha256:${'cd'.repeat(32)}`]: {
    name: 'tricky',
    parameters: { properties: { receipt: { type: 'string', description: '","rlen":"1"' } } },
  },
};

describe('spooled receipt layout', () => {
  it('round-trips: the receipt bytes are cut out exactly, the rest parsed', () => {
    const payload = encodeSpooledReceipt({
      id: 'rcpt_1',
      hash: HASH,
      receiptJson: JSON.stringify(receipt),
      schemas,
    });
    const decoded = decodeSpooledReceipt(payload);
    expect(decoded.id).toBe('rcpt_1');
    expect(decoded.hash).toBe(HASH);
    expect(decoded.schemas).toEqual(schemas);
    expect(decoded.receiptJson.toString('utf8')).toBe(JSON.stringify(receipt));
    // Still one plain JSON object, so the spool's recovery reads its hash like any record's.
    expect(JSON.parse(payload.toString('utf8'))).toMatchObject({ hash: HASH, receipt, schemas });
    expect(parseSpooledReceipt(decoded)).toEqual({ hash: HASH, receipt, schemas });
  });

  it('reads records spooled as plain JSON by earlier gateways', () => {
    const plain = Buffer.from(JSON.stringify({ hash: HASH, receipt, schemas: {} }));
    const decoded = decodeSpooledReceipt(plain);
    expect(decoded).toMatchObject({ id: 'rcpt_1', hash: HASH, schemas: {} });
    expect(JSON.parse(decoded.receiptJson.toString('utf8'))).toEqual(receipt);
  });

  it('splices an ingest body that parses to the receipts in order', () => {
    const records = [1, 2, 3].map((n) =>
      decodeSpooledReceipt(
        encodeSpooledReceipt({
          id: `rcpt_${n}`,
          hash: HASH,
          receiptJson: JSON.stringify({ ...receipt, id: `rcpt_${n}` }),
          schemas: {},
        }),
      ),
    );
    const body = JSON.parse(ingestBody(records).toString('utf8')) as { receipts: unknown[] };
    expect(body.receipts).toEqual([1, 2, 3].map((n) => ({ ...receipt, id: `rcpt_${n}` })));
    expect(JSON.parse(ingestBody([]).toString('utf8'))).toEqual({ receipts: [] });
  });
});
