import { canonicalize } from '@toolgate/core';
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
const SET_HASH = `sha256:${'ef'.repeat(32)}`;
const toolSets = { [SET_HASH]: { tools: [] } };

describe('spooled receipt layout', () => {
  it('round-trips: the receipt bytes are cut out exactly, the rest parsed', () => {
    const payload = encodeSpooledReceipt({
      id: 'rcpt_1',
      hash: HASH,
      receiptJson: JSON.stringify(receipt),
      schemas,
      toolSets,
    });
    const decoded = decodeSpooledReceipt(payload);
    expect(decoded.id).toBe('rcpt_1');
    expect(decoded.hash).toBe(HASH);
    expect(decoded.schemas).toEqual(schemas);
    expect(decoded.toolSets).toEqual(toolSets);
    expect(decoded.receiptJson.toString('utf8')).toBe(JSON.stringify(receipt));
    // Still one plain JSON object, so the spool's recovery reads its hash like any record's.
    expect(JSON.parse(payload.toString('utf8'))).toMatchObject({ hash: HASH, receipt, schemas });
    expect(parseSpooledReceipt(decoded)).toEqual({
      hash: HASH,
      receipt,
      schemas,
      tool_sets: toolSets,
    });
  });

  it('reads records spooled as plain JSON by earlier gateways', () => {
    const plain = Buffer.from(JSON.stringify({ hash: HASH, receipt, schemas: {} }));
    const decoded = decodeSpooledReceipt(plain);
    expect(decoded).toMatchObject({ id: 'rcpt_1', hash: HASH, schemas: {}, toolSets: {} });
    expect(JSON.parse(decoded.receiptJson.toString('utf8'))).toEqual(receipt);
  });

  it('splices an ingest body: the receipts in order, the tool sets the records carry', () => {
    const other = { [`sha256:${'01'.repeat(32)}`]: { tools: [] } };
    const carried = [toolSets, {}, other, toolSets];
    const records = carried.map((sets, n) =>
      decodeSpooledReceipt(
        encodeSpooledReceipt({
          id: `rcpt_${n}`,
          hash: HASH,
          receiptJson: JSON.stringify({ ...receipt, id: `rcpt_${n}` }),
          schemas: {},
          toolSets: sets,
        }),
      ),
    );
    const body = JSON.parse(ingestBody(records).toString('utf8'));
    expect(body.receipts).toEqual(carried.map((_, n) => ({ ...receipt, id: `rcpt_${n}` })));
    expect(body.tool_sets).toEqual({ ...toolSets, ...other });
    expect(JSON.parse(ingestBody([]).toString('utf8'))).toEqual({ receipts: [], tool_sets: {} });
  });

  it('ships tool sets in canonical order, so the API writes their canonical text without a sort', () => {
    const unordered = {
      tools: [
        { type: 'function', name: 'b_tool', schema: { z: 1, a: { y: [2, { d: 1, c: 0 }] } } },
      ],
    };
    const record = decodeSpooledReceipt(
      encodeSpooledReceipt({
        id: 'rcpt_1',
        hash: HASH,
        receiptJson: JSON.stringify(receipt),
        schemas: {},
        toolSets: { [SET_HASH]: unordered as never },
      }),
    );
    const shipped = JSON.parse(ingestBody([record]).toString('utf8')).tool_sets[SET_HASH];
    // Parsed back, its keys are in canonical order: JSON.stringify writes its canonical text.
    expect(JSON.stringify(shipped)).toBe(canonicalize(unordered));
    expect(JSON.stringify(unordered)).not.toBe(canonicalize(unordered));
  });
});
