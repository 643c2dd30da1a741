import { chainReceiptJson, type Receipt, type ReceiptBody, type ToolSet } from '@toolgate/core';
import {
  decodeSpooledReceipt,
  encodeSpooledReceipt,
  ingestBody,
} from '../apps/gateway/src/receipts/spooled-receipt.ts';

/**
 * A batch's ingest body byte for byte as a gateway ships it: each receipt chained and spooled as
 * the gateway's recorder does (`chainReceiptJson`, `encodeSpooledReceipt`), read back by the
 * shipper's codec and joined by its `ingestBody`; each tool set rides with the first receipt
 * that uses it.
 */
export function gatewayIngestBody(receipts: ReadonlyArray<Receipt>): Buffer {
  const carried = new Set<string>();
  const records = receipts.map((receipt) => {
    const { hash, prev_hash, ...body } = receipt;
    const chained = chainReceiptJson(body as ReceiptBody, prev_hash);
    if (chained.hash !== hash) throw new Error(`receipt ${receipt.id} does not chain to ${hash}`);
    const toolSets: Record<string, ToolSet> = {};
    if (!carried.has(chained.toolSetHash)) {
      carried.add(chained.toolSetHash);
      toolSets[chained.toolSetHash] = chained.toolSet;
    }
    return decodeSpooledReceipt(
      encodeSpooledReceipt({
        id: receipt.id,
        hash,
        receiptJson: chained.json,
        schemas: {},
        toolSets,
      }),
    );
  });
  return ingestBody(records);
}
