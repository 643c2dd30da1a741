import pg from 'pg';

/**
 * Monthly partitions of `receipts` (partitioned by RANGE (received_at), UTC months, named
 * `receipts_YYYY_MM`, plus `receipts_default` for anything outside them). The API runs this at
 * start and every few hours; it is idempotent and safe to run from several replicas at once.
 *
 * Each run, in one transaction under an advisory lock: creates the partitions missing for the
 * months around `now` (the previous one, for late receipts, this one and the next two) and for
 * every month that has rows in the default partition — those rows move into their month's new
 * partition (a gateway that shipped after a long outage, a clock far off). A month that
 * overlaps a partition someone created by hand with other bounds fails the run (rolled back,
 * nothing half-done), and the receipts keep landing in the default partition.
 */

export const RECEIPTS_DEFAULT_PARTITION = 'receipts_default';
const LOCK_KEY = 'toolgate:receipt-partitions';
const MONTHS_BEHIND = 1;
const MONTHS_AHEAD = 2;

export interface ReceiptPartitionsReport {
  /** Partitions created by this run, oldest first. */
  created: string[];
  /** Receipts moved out of the default partition into a new monthly one. */
  moved: number;
}

export async function ensureReceiptPartitions(
  databaseUrl: string,
  options: { now?: Date; months?: ReadonlyArray<Date> } = {},
): Promise<ReceiptPartitionsReport> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [LOCK_KEY]);
    const existing = new Set(await listReceiptPartitions(client));
    const stray = await client.query<{ month: Date }>(
      `SELECT DISTINCT date_trunc('month', received_at, 'UTC') AS month FROM ${RECEIPTS_DEFAULT_PARTITION}`,
    );
    const now = options.now ?? new Date();
    const months = new Map<string, Date>();
    for (const month of [
      ...monthsAround(now),
      ...(options.months ?? []),
      ...stray.rows.map((row) => row.month),
    ]) {
      const start = monthStart(month);
      months.set(partitionName(start), start);
    }
    const report: ReceiptPartitionsReport = { created: [], moved: 0 };
    for (const [name, start] of [...months].sort(([a], [b]) => a.localeCompare(b))) {
      if (existing.has(name)) continue;
      report.moved += await createPartition(client, name, start);
      report.created.push(name);
    }
    await client.query('COMMIT');
    return report;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}

/** The partitions of `receipts`, by name. */
export async function listReceiptPartitions(client: pg.ClientBase): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'receipts'::regclass ORDER BY 1`,
  );
  return rows.map((row) => row.name);
}

/** Creates one month's partition; returns how many rows it took over from the default one. */
async function createPartition(client: pg.Client, name: string, start: Date): Promise<number> {
  const from = start.toISOString();
  const to = nextMonth(start).toISOString();
  const range = `FOR VALUES FROM ('${from}') TO ('${to}')`;
  const inDefault = `received_at >= '${from}' AND received_at < '${to}'`;
  const { rows } = await client.query<{ any: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM ${RECEIPTS_DEFAULT_PARTITION} WHERE ${inDefault}) AS any`,
  );
  if (!rows[0]?.any) {
    await client.query(`CREATE TABLE ${name} PARTITION OF receipts ${range}`);
    return 0;
  }
  // PostgreSQL refuses a new partition while the default one holds rows of its range: take
  // them out first, into the new table, then attach it (which builds its indexes).
  await client.query(`CREATE TABLE ${name} (LIKE receipts INCLUDING DEFAULTS)`);
  const moved = await client.query(
    `WITH moved AS (DELETE FROM ${RECEIPTS_DEFAULT_PARTITION} WHERE ${inDefault} RETURNING *)
     INSERT INTO ${name} SELECT * FROM moved`,
  );
  await client.query(`ALTER TABLE receipts ATTACH PARTITION ${name} ${range}`);
  return moved.rowCount ?? 0;
}

/** `receipts_2026_11` for any time in November 2026 (UTC). */
export function partitionName(at: Date): string {
  return `receipts_${at.getUTCFullYear()}_${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

function monthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

function nextMonth(start: Date): Date {
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}

function monthsAround(now: Date): Date[] {
  const months: Date[] = [];
  for (let offset = -MONTHS_BEHIND; offset <= MONTHS_AHEAD; offset++) {
    months.push(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1)));
  }
  return months;
}
