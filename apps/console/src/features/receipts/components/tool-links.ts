import type { ReceiptToolLink } from '@toolgate/contract';
import type { Receipt } from '@toolgate/core';

/**
 * Whether a receipt can have call ↔ result links: it released a call (whose result a later
 * receipt may carry) or carries a result naming its call's action.
 */
export function mayHaveToolLinks(receipt: Receipt): boolean {
  return (
    (receipt.response?.tool_calls.some((call) => call.policy_state === 'allowed') ?? false) ||
    (receipt.tool_results?.some((result) => result.action_id !== undefined) ?? false)
  );
}

/** The other receipts of `toolCallId` on `side` (this receipt's side), oldest first, once each. */
export function linkedReceipts(
  links: ReadonlyArray<ReceiptToolLink> | undefined,
  side: ReceiptToolLink['side'],
  toolCallId: string,
): string[] {
  const ids = (links ?? [])
    .filter((link) => link.side === side && link.toolCallId === toolCallId)
    .map((link) => link.receipt);
  return [...new Set(ids)];
}

/** `elapsed_ms` for people: `850 ms`, `12.4 s`, `3 min 5 s`, `2 h 4 min`; null is unknown. */
export function formatElapsed(ms: number | null): string {
  if (ms === null) return 'unknown';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.floor(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
