import { hashCanonical, type Sha256Hash } from '../hash/hash.ts';
import { isDeeplyFrozen } from '../json/deep-freeze.ts';
import type {
  Receipt,
  ReceiptBody,
  StoredReceipt,
  StoredReceiptBody,
  ToolSet,
} from './receipt-schema.ts';

/** A receipt's tool set: the same objects, not a copy. */
export function toolSetOf(
  receipt: Pick<ReceiptBody, 'tools' | 'wardwright_tool_mediation'>,
): ToolSet {
  const block = receipt.wardwright_tool_mediation;
  return block === undefined
    ? { tools: receipt.tools }
    : { wardwright_tool_mediation: block, tools: receipt.tools };
}

/**
 * Hashes of deeply frozen tool sets, keyed by their `tools` array. The engine's memoized catalog
 * outcome is frozen and shared by every request with the same tool list, so a gateway hashes
 * each tool set once, not once per request. A WeakMap: entries go with their objects.
 */
const frozenHashes = new WeakMap<object, { block: object | undefined; hash: Sha256Hash }>();

/** The content address of a tool set: sha256 over its canonical JSON (RFC 8785). */
export function toolSetHash(toolSet: ToolSet): Sha256Hash {
  const { tools, wardwright_tool_mediation: block } = toolSet;
  const known = frozenHashes.get(tools);
  if (known !== undefined && known.block === block) return known.hash;
  const hash = hashCanonical(toolSet);
  if (isDeeplyFrozen(tools) && (block === undefined || isDeeplyFrozen(block))) {
    frozenHashes.set(tools, { block, hash });
  }
  return hash;
}

/** True when a receipt carries its tool set inline (the served form), not only its hash. */
export function hasInlineToolSet(receipt: object): boolean {
  return 'tools' in receipt || 'wardwright_tool_mediation' in receipt;
}

/**
 * The stored form of a receipt (or of a body without chain fields): its tool set replaced by
 * `tool_set_hash`, which is computed from the inline tool set, whatever the receipt says.
 */
export function compactReceipt(receipt: Receipt): { stored: StoredReceipt; toolSet: ToolSet };
export function compactReceipt(body: ReceiptBody): { stored: StoredReceiptBody; toolSet: ToolSet };
export function compactReceipt(receipt: ReceiptBody): {
  stored: StoredReceiptBody;
  toolSet: ToolSet;
} {
  const { tools: _tools, wardwright_tool_mediation: _block, ...rest } = receipt;
  const toolSet = toolSetOf(receipt);
  return { stored: { ...rest, tool_set_hash: toolSetHash(toolSet) }, toolSet };
}

/**
 * The served form of a stored receipt: its tool set inline. The caller resolves `toolSet` by the
 * receipt's `tool_set_hash` from a content-addressed store (so it is the one that was hashed).
 */
export function expandReceipt(stored: StoredReceipt, toolSet: ToolSet): Receipt {
  const { tool_set_hash: _hash, ...rest } = stored;
  return { ...rest, ...toolSetOf(toolSet) };
}

/**
 * The ingest body for receipts in the served form: each in its stored form, with the tool sets
 * they reference (`POST …/gateways/{name}/receipts`). The gateway builds the same body from its
 * spool; this is for tools and tests that hold whole receipts.
 */
export function ingestBatchOf(receipts: ReadonlyArray<Receipt>): {
  receipts: StoredReceipt[];
  tool_sets: Record<string, ToolSet>;
} {
  const tool_sets: Record<string, ToolSet> = {};
  const stored = receipts.map((receipt) => {
    const compact = compactReceipt(receipt);
    tool_sets[compact.stored.tool_set_hash] = compact.toolSet;
    return compact.stored;
  });
  return { receipts: stored, tool_sets };
}
