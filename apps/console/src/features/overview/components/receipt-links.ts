/**
 * Links from the overview into the receipts list, with the filters the list reads from its URL
 * (`since`, `until`, `outcome`, `tool`, `rule`, `gateway`): each chart opens the receipts
 * behind it.
 */

export type OverviewClass = 'ok' | 'blocked' | 'withheld' | 'error';

function receiptsUrl(filters: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value) params.set(key, value);
  const query = params.toString();
  return query ? `/receipts?${query}` : '/receipts';
}

/** Receipts of `[from, to)`: the list's `until` is exclusive too. */
function window(from: string, to: string) {
  return { since: from, until: to };
}

/** Receipts of one class in a range: the list's `outcome` filter takes the same four classes. */
export function classLink(kind: OverviewClass, from: string, to: string): string {
  return receiptsUrl({ ...window(from, to), outcome: kind });
}

/** Every receipt of a range (a bucket of a time chart). */
export function rangeLink(from: string, to: string): string {
  return receiptsUrl(window(from, to));
}

export function toolLink(tool: string, from: string, to: string): string {
  return receiptsUrl({ ...window(from, to), tool });
}

/**
 * Receipts a rule decided. A `policy/rule` goes to the rule filter (which finds the calls a
 * call-time rule blocked or withheld); a reason without a rule (`hidden`, `not_declared`) to the
 * blocked receipts of the range.
 */
export function ruleLink(rule: string, from: string, to: string): string {
  if (rule.includes('/')) return receiptsUrl({ ...window(from, to), rule });
  return receiptsUrl({ ...window(from, to), outcome: 'blocked' });
}

export function gatewayLink(gateway: string, from: string, to: string): string {
  return receiptsUrl({ ...window(from, to), gateway });
}
