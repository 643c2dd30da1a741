import type { ApiClient, ReceiptSummary } from '@toolgate/contract';
import type { ReceiptFilters } from './list-receipts.ts';

/**
 * Export of the filtered list, done in the browser over the list's own keyset pages: the same
 * filters, order and access checks as the list, no second query path in the API to keep in step,
 * and nothing held open on the server. Capped so a careless click cannot pull a million rows
 * into a tab; past the cap the file says so (`truncated`) and the CLI or the API is the tool.
 */
export const EXPORT_MAX_ROWS = 10_000;
const EXPORT_PAGE = 500;

export type ExportFormat = 'jsonl' | 'csv';

export async function fetchForExport(
  client: ApiClient,
  filters: ReceiptFilters,
  options: { signal?: AbortSignal; onProgress?: (rows: number) => void } = {},
): Promise<{ rows: ReceiptSummary[]; truncated: boolean }> {
  const rows: ReceiptSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.call('receipts.list', {
      query: { ...filters, limit: EXPORT_PAGE, ...(cursor ? { continue: cursor } : {}) },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (!page) break;
    rows.push(...page.items);
    options.onProgress?.(rows.length);
    cursor = page.metadata.continue;
  } while (cursor && rows.length < EXPORT_MAX_ROWS);
  return { rows: rows.slice(0, EXPORT_MAX_ROWS), truncated: Boolean(cursor) };
}

/** One receipt summary a line. */
export function toJsonLines(rows: ReadonlyArray<ReceiptSummary>): string {
  return rows.map((row) => `${JSON.stringify(row)}\n`).join('');
}

const CSV_COLUMNS: Array<[string, (row: ReceiptSummary) => string]> = [
  ['id', (r) => r.id],
  ['received_at', (r) => r.receivedAt],
  ['gateway', (r) => r.gateway],
  ['seq', (r) => r.seq],
  ['surface', (r) => r.surface],
  ['model', (r) => r.model],
  ['status', (r) => String(r.status)],
  ['outcome', (r) => r.outcome],
  ['identity_human', (r) => r.identity.human ?? ''],
  ['identity_service', (r) => r.identity.service ?? ''],
  ['identity_session', (r) => r.identity.session ?? ''],
  ['binding', (r) => r.identity.binding],
  ['tools_called', (r) => r.calls.map((c) => c.name).join(' ')],
  ['tools_blocked', (r) => namesIn(r, 'blocked')],
  ['tools_withheld', (r) => namesIn(r, 'deferred')],
  ['rules', (r) => r.rules.join(' ')],
  ['policies', (r) => r.policies.join(' ')],
  ['hash', (r) => r.hash],
];

function namesIn(row: ReceiptSummary, state: 'blocked' | 'deferred'): string {
  return row.calls
    .filter((c) => c.state === state)
    .map((c) => c.name)
    .join(' ');
}

/**
 * RFC 4180 CSV. Tool names, identities and models come from agents and providers: a cell that a
 * spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR) is prefixed with `'`.
 */
export function toCsv(rows: ReadonlyArray<ReceiptSummary>): string {
  const lines = [CSV_COLUMNS.map(([name]) => name).join(',')];
  for (const row of rows) lines.push(CSV_COLUMNS.map(([, get]) => csvCell(get(row))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** Hands the file to the browser as a download. */
export function download(text: string, fileName: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
