import type { Receipt, ToolDescriptor } from '@toolgate/core';

export interface ToolChange {
  /** Agent-facing name. */
  name: string;
  /** Name the provider saw, when different. */
  providerName?: string;
  kind: 'hidden' | 'changed' | 'renamed' | 'added';
  before?: ToolDescriptor;
  after?: ToolDescriptor;
}

/**
 * What mediation did to each tool of a receipt: hidden, schema changed (augment / replace),
 * renamed, or added (gateway-hosted). Unchanged tools are left out.
 */
export function toolChanges(receipt: Receipt): ToolChange[] {
  const block = receipt.wardwright_tool_mediation;
  if (!block) return [];
  const visible = new Map(block.provider_visible_tools.map((t) => [t.name, t]));
  const providerNameOf = new Map(
    receipt.tools.filter((t) => t.provider_name).map((t) => [t.name, t.provider_name as string]),
  );
  const changes: ToolChange[] = [];
  const seen = new Set<string>();
  for (const before of block.original_tools) {
    const providerName = providerNameOf.get(before.name);
    const after = visible.get(providerName ?? before.name);
    if (after) seen.add(after.name);
    if (!after) changes.push({ name: before.name, kind: 'hidden', before });
    else if (after.schema_hash !== before.schema_hash)
      changes.push({
        name: before.name,
        kind: 'changed',
        before,
        after,
        ...(providerName ? { providerName } : {}),
      });
    else if (providerName)
      changes.push({ name: before.name, providerName, kind: 'renamed', before, after });
  }
  for (const after of block.provider_visible_tools) {
    if (!seen.has(after.name) && !block.original_tools.some((t) => t.name === after.name))
      changes.push({ name: after.name, kind: 'added', after });
  }
  return changes;
}
