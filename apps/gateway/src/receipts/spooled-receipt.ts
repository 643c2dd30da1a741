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
