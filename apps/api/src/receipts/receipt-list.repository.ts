import { Inject, Injectable } from '@nestjs/common';
import { Prisma } from '@toolgate/db';
import { PrismaService } from '../database/prisma.service.ts';
import type { ReceiptColumns, ReceiptOutcome, ReceiptStatsColumns } from './receipt-columns.ts';

/** What the list's `outcome` filter takes: the stored outcomes and `withheld`. */
export type ReceiptFilterOutcome = ReceiptOutcome | 'withheld';

export interface ReceiptFilter {
  gateway?: string;
  identity?: string;
  tool?: string;
  /**
   * Any of these tool names: a `toolContains` substring resolved to the names that contain it
   * (`toolNamesContaining`), so the GIN index on `tools` serves it.
   */
  toolNames?: string[];
  /** `policy/rule`. */
  qualifiedRule?: string;
  /** A rule id without its policy. */
  ruleId?: string;
  policy?: string;
  /** A capability contract id the receipt holds evidence of (its `capabilities` column). */
  capability?: string;
  outcome?: ReceiptFilterOutcome;
  surface?: string;
  since?: string;
  until?: string;
  /** `newest` first (default) or `oldest` first. */
  order?: 'newest' | 'oldest';
  /**
   * Keyset position: strictly past this (received_at, id) in the list's order (older for
   * newest first, newer for oldest first).
   */
  before?: { receivedAt: string; id: string };
}

export interface ReceiptSummaryRow
  extends Omit<ReceiptColumns, 'receivedAt' | 'outcome' | keyof ReceiptStatsColumns> {
  seq: bigint;
  receivedAt: Date;
  outcome: string;
}

/**
 * How a filtered page is read. `walk`: down the time index, keeping the matches; `index`: every
 * match from the GIN indexes, then sorted. `auto` picks by the estimated number of matches;
 * tests force either to check they agree.
 */
export type ListStrategy = 'auto' | 'walk' | 'index';

/** Element frequencies of one array column, as the last ANALYZE sampled them. */
interface ElementStats {
  frequencies: Map<string, number>;
  /** The lowest frequency ANALYZE kept: an element it dropped is rarer than this. */
  floor: number;
}

interface TableStats {
  rows: number;
  columns: Map<string, ElementStats>;
}

/** One partition's statistics of one array column (column null: the partition has none). */
export interface PartitionStatsRow {
  partition: string;
  rows: number;
  column: string | null;
  elements: string[] | null;
  frequencies: number[] | null;
}

/** With no elements kept, ANALYZE saw nothing more common than this. */
const UNLISTED_FLOOR = 0.001;

const STATS_TTL_MS = 5 * 60_000;
const MIN_WINDOW = 1000;
const MAX_WINDOW = 50_000;
/** Without statistics (a young table) the walk reads at most this many rows. */
const DEFAULT_WINDOW = 4000;
/**
 * A match read through GIN (bitmap heap fetch of scattered rows, then a sort) costs about four
 * rows walked in time order (measured on a million rows: ~3 µs against ~0.75 µs).
 */
const INDEX_ROW_COST = 4;

const COLUMNS = Prisma.sql`
  id, gateway, seq, received_at, surface, model, stream, status, outcome, identity_human,
  identity_service, identity_session, binding, tools, rules, policies, capabilities, prev_hash,
  hash`;

const SUMMARY_COLUMNS = Prisma.sql`
  id, gateway, seq, received_at AS "receivedAt", surface, model, stream, status, outcome,
  identity_human AS "identityHuman", identity_service AS "identityService",
  identity_session AS "identitySession", binding, tools, rules, policies,
  prev_hash AS "prevHash", hash`;

/**
 * Filtered receipt lists, newest first (received_at desc, id desc), in keyset pages.
 *
 * Array filters (tool, rule, policy, capability) are where PostgreSQL's planner goes wrong on a large table:
 * with `ORDER BY … LIMIT` it assumes matches are spread evenly over time, so it walks the time
 * index for a tool that is frequent overall but absent lately (a second on a million rows), and
 * it does the same for rare tools that fell out of its statistics. So the access path is chosen
 * here, from the same statistics, with the cost model made explicit:
 *
 * - reading every match through GIN costs about `n` scattered heap rows (n = matches), each
 *   about four times a row read in time order;
 * - walking the time index costs about `limit / density = limit · N / n` rows (N = table rows);
 *
 * so the index wins for `4n < limit · N / n`, i.e. below ≈ 3,500 matches of a million for a
 * page of 50, and for elements too rare to be in the statistics at all; the walk wins above.
 * The walk is capped at twice the rows the density predicts; if the matches are older than that
 * (a tool that was common and is gone) the index path reads the rest, so no filter ever walks
 * the whole table.
 */
@Injectable()
export class ReceiptListRepository {
  private stats: { at: number; value: TableStats | undefined } | undefined;

  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  async list(
    filter: ReceiptFilter,
    limit: number,
    strategy: ListStrategy = 'auto',
  ): Promise<ReceiptSummaryRow[]> {
    const scalar = scalarConditions(filter);
    const arrays = arrayConditions(filter);
    const { dir } = orderOf(filter);
    if (arrays.length === 0) {
      return this.prisma.client.$queryRaw<ReceiptSummaryRow[]>`
        SELECT ${SUMMARY_COLUMNS} FROM receipts
        WHERE ${and(scalar)}
        ORDER BY received_at ${dir}, id ${dir}
        LIMIT ${limit}`;
    }
    if (strategy === 'index') return this.fromIndex(filter, limit);
    if (strategy === 'walk') return this.walk(filter, limit, limit * 2);
    const stats = await this.tableStats();
    const estimate = stats ? estimateMatches(stats, filter) : undefined;
    if (!stats || estimate === undefined) return this.walk(filter, limit, DEFAULT_WINDOW);
    if (estimate.rare || estimate.rows ** 2 * INDEX_ROW_COST < limit * stats.rows) {
      return this.fromIndex(filter, limit);
    }
    // Sized for twice the expected matches; the walk stops early when they come sooner.
    const window = (2 * limit * stats.rows) / estimate.rows;
    return this.walk(filter, limit, Math.round(Math.min(MAX_WINDOW, Math.max(MIN_WINDOW, window))));
  }

  /** Every match via the GIN (and other) indexes, sorted; cost grows with the matches. */
  private fromIndex(filter: ReceiptFilter, limit: number): Promise<ReceiptSummaryRow[]> {
    // Sorting by an expression keeps the planner off the time index, whose order it would
    // otherwise buy with a scan of every newer row.
    const { dir } = orderOf(filter);
    return this.prisma.client.$queryRaw<ReceiptSummaryRow[]>`
      SELECT ${SUMMARY_COLUMNS} FROM receipts
      WHERE ${and([...scalarConditions(filter), ...arrayConditions(filter)])}
      ORDER BY received_at + interval '0' ${dir}, id ${dir}
      LIMIT ${limit}`;
  }

  /**
   * Down the time index through at most `window` rows, keeping the matches. The window is a
   * subquery the outer `LIMIT` pulls from lazily, so a walk costs the rows it needs, not the
   * window. If the window ends short of a page (the matches are older), the index path reads
   * the rest.
   */
  private async walk(
    filter: ReceiptFilter,
    limit: number,
    window: number,
  ): Promise<ReceiptSummaryRow[]> {
    const { dir, reverse } = orderOf(filter);
    const rows = await this.prisma.client.$queryRaw<ReceiptSummaryRow[]>`
      SELECT ${SUMMARY_COLUMNS} FROM (
        SELECT ${COLUMNS} FROM receipts
        WHERE ${and(scalarConditions(filter))}
        ORDER BY received_at ${dir}, id ${dir}
        LIMIT ${window}
      ) recent
      WHERE ${and(arrayConditions(filter))}
      ORDER BY received_at ${dir}, id ${dir}
      LIMIT ${limit}`;
    if (rows.length >= limit) return rows;
    const [edge] = await this.prisma.client.$queryRaw<
      Array<{ receivedAt: Date; id: string; scanned: number }>
    >`
      SELECT received_at AS "receivedAt", id, count(*) OVER ()::int AS scanned FROM (
        SELECT received_at, id FROM receipts
        WHERE ${and(scalarConditions(filter))}
        ORDER BY received_at ${dir}, id ${dir}
        LIMIT ${window}
      ) recent
      ORDER BY received_at ${reverse}, id ${reverse}
      LIMIT 1`;
    // The window held everything the filters allow: the page is complete.
    if (!edge || edge.scanned < window) return rows;
    const before = { receivedAt: edge.receivedAt.toISOString(), id: edge.id };
    return [...rows, ...(await this.fromIndex({ ...filter, before }, limit - rows.length))];
  }

  /**
   * Tool names of stored receipts containing `needle` (any case), at most `limit`: from the
   * names table (one row per distinct name), not from the receipts. `strpos`, not `LIKE`: the
   * user's `%` and `_` are characters to find, not wildcards.
   */
  async toolNamesContaining(needle: string, limit: number): Promise<string[]> {
    const rows = await this.prisma.client.$queryRaw<Array<{ name: string }>>`
      SELECT name FROM receipt_tool_names
      WHERE strpos(lower(name), ${needle.toLowerCase()}) > 0
      ORDER BY name
      LIMIT ${limit}`;
    return rows.map((row) => row.name);
  }

  /**
   * How many receipts match, counting at most `cap` + 1 (so "more than cap" is known without
   * counting them all): the matches are read through the same indexes a page uses, and the
   * count stops at the cap.
   */
  async count(filter: ReceiptFilter, cap: number): Promise<{ count: number; capped: boolean }> {
    const [row] = await this.prisma.client.$queryRaw<Array<{ count: number }>>`
      SELECT count(*)::int AS count FROM (
        SELECT 1 FROM receipts
        WHERE ${and([...scalarConditions(filter), ...arrayConditions(filter)])}
        LIMIT ${cap + 1}
      ) matches`;
    const count = row?.count ?? 0;
    return { count: Math.min(count, cap), capped: count > cap };
  }

  /**
   * The response evidence (`response.tool_calls`, `response.hosted_tool_events`) of the listed
   * receipts, by id: what a row shows as the tools called. Read for one page's rows only, by
   * primary key, so the walk never opens a body.
   */
  async responsesOf(
    rows: ReadonlyArray<{ id: string; receivedAt: Date }>,
  ): Promise<Map<string, unknown>> {
    if (rows.length === 0) return new Map();
    const found = await this.prisma.client.$queryRaw<Array<{ id: string; response: unknown }>>`
      SELECT r.id, r.body -> 'response' AS response
      FROM receipts r
      JOIN unnest(${rows.map((row) => row.id)}::text[],
        ${rows.map((row) => row.receivedAt.toISOString())}::timestamptz[]) AS page(id, received_at)
        ON r.id = page.id AND r.received_at = page.received_at`;
    return new Map(found.map((row) => [row.id, row.response]));
  }

  /**
   * Row count and element frequencies of the array columns, cached for a few minutes. `receipts`
   * is partitioned and autovacuum analyzes only its partitions, so the figures are theirs,
   * combined: rows summed, an element's frequency weighted by its partition's rows (0 where a
   * partition's statistics do not list it), the floor likewise. Partitions never analyzed count
   * for nothing.
   */
  private async tableStats(): Promise<TableStats | undefined> {
    if (this.stats && Date.now() - this.stats.at < STATS_TTL_MS) return this.stats.value;
    const partitions = await this.prisma.client.$queryRaw<PartitionStatsRow[]>`
      SELECT c.relname AS partition, c.reltuples::float8 AS rows, s.attname AS column,
        s.most_common_elems::text::text[] AS elements,
        s.most_common_elem_freqs::float8[] AS frequencies
      FROM pg_inherits i
      JOIN pg_class c ON c.oid = i.inhrelid
      LEFT JOIN pg_stats s ON s.schemaname = current_schema() AND s.tablename = c.relname
        AND NOT s.inherited AND s.attname IN ('tools', 'rules', 'policies', 'capabilities')
      WHERE i.inhparent = 'receipts'::regclass AND c.reltuples > 0`;
    const value = combinePartitionStats(partitions);
    this.stats = { at: Date.now(), value };
    return value;
  }
}

/**
 * Estimated rows matching the array filters (the rarest filter bounds them all); `rare` when an
 * element is not in the statistics (rarer than anything ANALYZE kept). Undefined when a filter
 * cannot be estimated (a bare rule id, a column never analyzed).
 */
function estimateMatches(
  stats: TableStats,
  filter: ReceiptFilter,
): { rows: number; rare: boolean } | undefined {
  // A bare rule id and a set of tool names have no single element to look up.
  if (filter.ruleId !== undefined || filter.toolNames !== undefined) return undefined;
  let rows = Number.POSITIVE_INFINITY;
  let rare = false;
  for (const [column, element] of [
    ['tools', filter.tool],
    ['rules', filter.qualifiedRule],
    ['policies', filter.policy],
    ['capabilities', filter.capability],
  ] as const) {
    if (element === undefined) continue;
    const elementStats = stats.columns.get(column);
    if (!elementStats) return undefined;
    const frequency = elementStats.frequencies.get(element);
    if (frequency === undefined) rare = true;
    rows = Math.min(rows, (frequency ?? elementStats.floor) * stats.rows);
  }
  return { rows, rare };
}

function scalarConditions(filter: ReceiptFilter): Prisma.Sql[] {
  const conditions: Prisma.Sql[] = [];
  if (filter.gateway !== undefined) conditions.push(Prisma.sql`gateway = ${filter.gateway}`);
  if (filter.identity !== undefined) {
    const identity = filter.identity;
    conditions.push(
      Prisma.sql`(identity_human = ${identity} OR identity_service = ${identity}
        OR identity_session = ${identity})`,
    );
  }
  if (filter.outcome !== undefined) conditions.push(outcomeCondition(filter.outcome));
  if (filter.surface !== undefined) conditions.push(Prisma.sql`surface = ${filter.surface}`);
  if (filter.since !== undefined) {
    conditions.push(Prisma.sql`received_at >= ${filter.since}::timestamptz`);
  }
  if (filter.until !== undefined) {
    conditions.push(Prisma.sql`received_at < ${filter.until}::timestamptz`);
  }
  if (filter.before !== undefined) {
    const { receivedAt, id } = filter.before;
    conditions.push(
      filter.order === 'oldest'
        ? Prisma.sql`(received_at, id) > (${receivedAt}::timestamptz, ${id})`
        : Prisma.sql`(received_at, id) < (${receivedAt}::timestamptz, ${id})`,
    );
  }
  return conditions;
}

/**
 * The Overview's classes (receipt-columns.ts, `overviewClass`), so a chart's link lists what it
 * counted: `blocked` is the stored outcome; a request with a withheld call is `withheld`
 * (looked up by primary key in `receipt_stats`), and `ok`/`error` are those without one.
 */
function outcomeCondition(outcome: ReceiptFilterOutcome): Prisma.Sql {
  const withheld = Prisma.sql`EXISTS (SELECT 1 FROM receipt_stats s
    WHERE s.id = receipts.id AND s.outcome_class = 'withheld')`;
  if (outcome === 'blocked') return Prisma.sql`outcome = 'blocked'`;
  if (outcome === 'withheld') return Prisma.sql`(outcome <> 'blocked' AND ${withheld})`;
  return Prisma.sql`(outcome = ${outcome} AND NOT ${withheld})`;
}

function arrayConditions(filter: ReceiptFilter): Prisma.Sql[] {
  const conditions: Prisma.Sql[] = [];
  if (filter.tool !== undefined) {
    conditions.push(Prisma.sql`tools @> ARRAY[${filter.tool}::text]`);
  }
  if (filter.toolNames !== undefined) {
    conditions.push(Prisma.sql`tools && ${filter.toolNames}::text[]`);
  }
  if (filter.policy !== undefined) {
    conditions.push(Prisma.sql`policies @> ARRAY[${filter.policy}::text]`);
  }
  if (filter.capability !== undefined) {
    conditions.push(Prisma.sql`capabilities @> ARRAY[${filter.capability}::text]`);
  }
  if (filter.qualifiedRule !== undefined) {
    const rule = Prisma.sql`ARRAY[${filter.qualifiedRule}::text]`;
    conditions.push(Prisma.sql`(rules @> ${rule} OR ${decidedACall(rule, filter)})`);
  }
  if (filter.ruleId !== undefined) {
    // A bare rule id means `<policy>/<id>` for every policy that ever had a rule with that id
    // (revisions are kept forever), plus the bare id itself (a rule recorded without its
    // policy). Resolved to a short list first so the GIN index on `rules` still applies.
    const id = filter.ruleId;
    const rules = Prisma.sql`(
      SELECT coalesce(array_agg(DISTINCT name || '/' || ${id}::text), '{}') || ARRAY[${id}::text]
      FROM policy_revisions
      WHERE spec::jsonb -> 'rules' @> jsonb_build_array(jsonb_build_object('id', ${id}::text)))`;
    conditions.push(Prisma.sql`(rules && ${rules} OR ${decidedACall(rules, filter)})`);
  }
  return conditions;
}

/**
 * A call-time rule (`deny`, `rate_limit`, `require_approval`) decides calls, not the request's
 * tools, so it is not in `rules`: the receipts where one of `rules` blocked or withheld a call
 * are found in `receipt_stats` (what the overview counts by rule, so its links list the same
 * receipts). The time filters narrow that lookup through its `received_at` index.
 */
function decidedACall(rules: Prisma.Sql, filter: ReceiptFilter): Prisma.Sql {
  const range: Prisma.Sql[] = [];
  if (filter.since !== undefined)
    range.push(Prisma.sql`s.received_at >= ${filter.since}::timestamptz`);
  if (filter.until !== undefined)
    range.push(Prisma.sql`s.received_at < ${filter.until}::timestamptz`);
  return Prisma.sql`id IN (
    SELECT s.id FROM receipt_stats s
    WHERE (s.blocked_calls && ${rules} OR s.withheld_calls && ${rules}) AND ${and(range)})`;
}

function orderOf(filter: ReceiptFilter): { dir: Prisma.Sql; reverse: Prisma.Sql } {
  const oldest = filter.order === 'oldest';
  return { dir: Prisma.raw(oldest ? 'ASC' : 'DESC'), reverse: Prisma.raw(oldest ? 'DESC' : 'ASC') };
}

function and(conditions: Prisma.Sql[]): Prisma.Sql {
  return conditions.length === 0 ? Prisma.sql`TRUE` : Prisma.join(conditions, ' AND ');
}

/**
 * The statistics of the whole table from its partitions' (see `tableStats`); undefined when no
 * partition has been analyzed. Exported for its unit test.
 */
export function combinePartitionStats(
  rows: ReadonlyArray<PartitionStatsRow>,
): TableStats | undefined {
  const partitionRows = new Map(rows.map((row) => [row.partition, row.rows]));
  const total = [...partitionRows.values()].reduce((sum, count) => sum + count, 0);
  if (total <= 0) return undefined;
  const columns = new Map<string, ElementStats>();
  for (const row of rows) {
    if (row.column === null) continue;
    const column = columns.get(row.column) ?? { frequencies: new Map(), floor: 0 };
    columns.set(row.column, column);
    const weight = row.rows / total;
    const elements = row.elements ?? [];
    const frequencies = row.frequencies ?? [];
    elements.forEach((element, i) => {
      const sum = (column.frequencies.get(element) ?? 0) + (frequencies[i] ?? 0) * weight;
      column.frequencies.set(element, sum);
    });
    // After the per-element frequencies come the minimum, the maximum and the null frequency.
    const floor = elements.length > 0 ? (frequencies[elements.length] ?? 0) : UNLISTED_FLOOR;
    column.floor += floor * weight;
  }
  return { rows: total, columns };
}
