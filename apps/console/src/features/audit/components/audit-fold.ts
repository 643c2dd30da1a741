import type { AuditEntry } from '@toolgate/contract';

/** One row of the audit table: an entry, or a run of repeats of it folded together. */
export interface AuditRow {
  /** The newest entry of the run (its id keys the row). */
  entry: AuditEntry;
  /** How many entries the row stands for. */
  count: number;
  /** Time of the oldest entry of the run. */
  firstAt: string;
  /** `before` of the oldest entry: the run as one change. */
  beforeHash: string | null;
}

/**
 * Folds consecutive repeats into one row, newest first: the same actor doing the same verb to
 * the same object, when the entry is a status report (`update-status`: a gateway writes one
 * every 30 s, changing little but its timestamp) or changes nothing (before = after). Any other
 * entry in between ends the run, so the order of events stays readable.
 */
export function foldAuditEntries(entries: ReadonlyArray<AuditEntry>): AuditRow[] {
  const rows: AuditRow[] = [];
  for (const entry of entries) {
    const previous = rows.at(-1);
    if (previous && repeats(previous.entry, entry)) {
      previous.count += 1;
      previous.firstAt = entry.at;
      previous.beforeHash = entry.beforeHash;
    } else {
      rows.push({ entry, count: 1, firstAt: entry.at, beforeHash: entry.beforeHash });
    }
  }
  return rows;
}

function foldable(entry: AuditEntry): boolean {
  // Hashes absent on both sides (token issue/revoke) say nothing about a no-op: those stay.
  return (
    entry.verb === 'update-status' ||
    (entry.beforeHash !== null && entry.beforeHash === entry.afterHash)
  );
}

function repeats(newer: AuditEntry, older: AuditEntry): boolean {
  return (
    foldable(newer) &&
    foldable(older) &&
    newer.actor === older.actor &&
    newer.verb === older.verb &&
    newer.kind === older.kind &&
    newer.name === older.name
  );
}
