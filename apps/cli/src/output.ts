import { Option } from 'commander';
import { stringify } from 'yaml';
import type { CliIo } from './context.ts';

export const OUTPUT_FORMATS = ['table', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** `-o, --output json|yaml|table`. */
export function outputOption(defaultFormat: OutputFormat = 'table'): Option {
  return new Option('-o, --output <format>', 'output format')
    .choices(OUTPUT_FORMATS)
    .default(defaultFormat);
}

/** JSON (2-space, trailing newline) or YAML of a value. */
export function formatData(value: unknown, format: 'json' | 'yaml'): string {
  return format === 'json'
    ? `${JSON.stringify(value, null, 2)}\n`
    : stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

/** Writes a value as JSON or YAML, or calls `table` for the human format. */
export function printAs(io: CliIo, format: OutputFormat, value: unknown, table: () => string) {
  io.stdout(format === 'table' ? table() : formatData(value, format));
}

/** kubectl-style columns: upper-case headers, padded, three spaces apart. */
export function renderTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0),
      )
      .join('   ')
      .trimEnd();
  return `${[line(headers), ...rows.map(line)].join('\n')}\n`;
}

/** Age as kubectl shows it: 45s, 12m, 3h, 5d. */
export function age(timestamp: string | undefined, now: Date = new Date()): string {
  if (!timestamp) return '<none>';
  const seconds = Math.max(0, Math.floor((now.getTime() - Date.parse(timestamp)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** Labels as `a=b,c=d`, or `<none>`. */
export function formatLabels(labels: Record<string, string> | undefined): string {
  const entries = Object.entries(labels ?? {});
  return entries.length === 0 ? '<none>' : entries.map(([k, v]) => `${k}=${v}`).join(',');
}
