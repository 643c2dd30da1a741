import { RECEIPT_LIMITS, type Receipt } from '@toolgate/core';

/** A receipt's side of a call-to-result link (table `receipt_tool_calls`). */
export interface ToolLinkRow {
  /** `call`: the receipt released the call; `result`: the receipt carries its result. */
  role: 'call' | 'result';
  toolCallId: string;
  actionId: string;
}

/**
 * What a receipt contributes to the call-to-result links: each call it released to the agent
 * (`allowed`: a withheld call never reached the agent, so no result can follow it) and each
 * result that names its call's action id. One row per role and id; ids longer than a receipt's
 * own limit (a gateway that does not cut them) are not indexed.
 */
export function toolLinksOf(receipt: Receipt): ToolLinkRow[] {
  const rows: ToolLinkRow[] = [];
  const seen = new Set<string>();
  const add = (role: ToolLinkRow['role'], toolCallId: string, actionId: string) => {
    const key = `${role}\u0000${toolCallId}`;
    if (toolCallId.length > RECEIPT_LIMITS.toolCallId || seen.has(key)) return;
    seen.add(key);
    rows.push({ role, toolCallId, actionId });
  };
  for (const call of receipt.response?.tool_calls ?? []) {
    if (call.policy_state === 'allowed') add('call', call.id, call.action_id);
  }
  for (const result of receipt.tool_results ?? []) {
    if (result.action_id !== undefined) add('result', result.tool_call_id, result.action_id);
  }
  return rows;
}
