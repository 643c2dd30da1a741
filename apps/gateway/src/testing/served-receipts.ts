import { expandReceipt, type Receipt, type ToolSet } from '@toolgate/core';
import type { SpooledReceipt } from '../receipts/spooled-receipt.ts';
import type { Spool } from '../spool/spool.ts';

/**
 * The spool's pending receipts in their served form: each stored receipt with its tool set back
 * inline, taken from the record that carried it. Throws when no earlier pending record carries a
 * receipt's tool set, which would leave the API unable to store that receipt.
 */
export async function servedReceipts(
  spool: Spool<SpooledReceipt>,
  limit = 100_000,
): Promise<Receipt[]> {
  const toolSets = new Map<string, ToolSet>();
  return (await spool.pending(limit)).map(({ receipt: record }) => {
    for (const [hash, toolSet] of Object.entries(record.tool_sets ?? {})) {
      toolSets.set(hash, toolSet);
    }
    const hash = record.receipt.tool_set_hash;
    const toolSet = toolSets.get(hash);
    if (toolSet === undefined)
      throw new Error(`no spooled record before it carries tool set ${hash}`);
    return expandReceipt(record.receipt, toolSet);
  });
}
