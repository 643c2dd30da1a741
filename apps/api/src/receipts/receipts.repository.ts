import { Inject, Injectable } from '@nestjs/common';
import type { Receipt } from '@toolgate/core';
import { Prisma } from '@toolgate/db';
import { PrismaService } from '../database/prisma.service.ts';
import type { ReceiptColumns, ReceiptOutcome } from './receipt-columns.ts';

/** The last stored receipt of a gateway: what the next one must point to. */
export interface ChainHead {
  seq: bigint;
  hash: string;
}

/** What an ingest decides with, read under the gateway's chain lock. */
export interface ChainState {
  head: ChainHead | undefined;
  /** Hashes of the batch's ids that are already stored (any gateway). */
  stored: ReadonlyMap<string, string>;
}

/** A receipt ready to insert: its columns, its place in the chain and its JSON text. */
export interface NewReceiptRow extends ReceiptColumns {
  seq: bigint;
  /** The receipt as JSON text, exactly as the gateway sent it. */
  body: string;
}

export interface ReceiptFilter {
  gateway?: string;
  identity?: string;
  tool?: string;
  /** `policy/rule`. */
  qualifiedRule?: string;
  /** A rule id without its policy. */
  ruleId?: string;
  policy?: string;
  outcome?: ReceiptOutcome;
  since?: string;
  until?: string;
  /** Keyset position: strictly older than this (received_at, id). */
  before?: { receivedAt: string; id: string };
}

export interface ReceiptSummaryRow extends Omit<ReceiptColumns, 'receivedAt' | 'outcome'> {
  seq: bigint;
  receivedAt: Date;
  outcome: string;
}

/** One link of a gateway's chain as stored, for verification. */
export interface ChainLinkRow {
  seq: bigint;
  id: string;
  hash: string;
  prevHash: string | null;
  body: unknown;
}

/**
 * How many of the newest rows (in keyset order) a filtered list looks at before it switches to
 * the array indexes; see {@link ReceiptsRepository.list}.
 */
const RECENT_WINDOW = 4000;

const SUMMARY_COLUMNS = Prisma.sql`
  id, gateway, seq, received_at AS "receivedAt", surface, model, stream, status, outcome,
  identity_human AS "identityHuman", identity_service AS "identityService",
  identity_session AS "identitySession", binding, tools, rules, policies,
  prev_hash AS "prevHash", hash`;

/** Stored receipts: the hash-chained ingest, filtered keyset listing and chain walks. */
@Injectable()
export class ReceiptsRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  async find(id: string): Promise<{ seq: string; receipt: Receipt } | undefined> {
    const row = await this.prisma.client.receipt.findUnique({
      where: { id },
      select: { seq: true, body: true },
    });
    return row ? { seq: row.seq.toString(), receipt: row.body as unknown as Receipt } : undefined;
  }

  /**
   * Appends to a gateway's chain in one transaction: takes the gateway's chain lock (concurrent
   * ingests of one gateway queue up, other gateways are not held), reads the chain head and
   * which of `ids` are already stored, lets `plan` decide, and inserts the rows it returns with
   * a single `INSERT … SELECT FROM unnest(…)` (one round trip for the whole batch). Nothing is
   * written if anything fails.
   */
  async appendToChain<T>(
    gateway: string,
    ids: ReadonlyArray<string>,
    plan: (state: ChainState) => { rows: NewReceiptRow[]; result: T },
  ): Promise<T> {
    return this.prisma.client.$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`receipts:${gateway}`}))`;
        const heads = await tx.$queryRaw<ChainHead[]>`
          SELECT seq, hash FROM receipts WHERE gateway = ${gateway} ORDER BY seq DESC LIMIT 1`;
        const stored =
          ids.length === 0
            ? []
            : await tx.$queryRaw<Array<{ id: string; hash: string }>>`
                SELECT id, hash FROM receipts WHERE id = ANY(${[...ids]}::text[])`;
        const { rows, result } = plan({
          head: heads[0],
          stored: new Map(stored.map((row) => [row.id, row.hash])),
        });
        if (rows.length === 0) return result;
        try {
          await tx.$executeRaw(insertStatement(gateway, rows));
        } catch (error) {
          // Ids were checked under the lock, so only another gateway's concurrent batch with
          // one of the same ids gets here (its lock is not ours). No `ON CONFLICT`: the
          // speculative insertion it needs costs a third of the statement on every batch.
          if (isUniqueViolation(error)) throw new ReceiptIdTakenError();
          throw error;
        }
        return result;
      },
      { maxWait: 10_000, timeout: 60_000 },
    );
  }

  /**
   * Newest first (received_at desc, id desc), at most `limit` rows after the keyset position.
   *
   * Array filters (tool, rule, policy) are where a cost-based planner goes wrong: it assumes
   * matches are spread evenly over time, so for a tool that is common overall but absent lately
   * it walks the time index through most of the table. Instead, the newest
   * {@link RECENT_WINDOW} rows are checked first (cheap: one index range); only when they hold
   * too few matches does the query go through the GIN indexes, which is then the right plan
   * because the filter is known to be selective where the page starts.
   */
  async list(
    filter: ReceiptFilter,
    limit: number,
    recentWindow = RECENT_WINDOW,
  ): Promise<ReceiptSummaryRow[]> {
    const scalar = scalarConditions(filter);
    const arrays = arrayConditions(filter);
    if (arrays.length === 0) {
      return this.prisma.client.$queryRaw<ReceiptSummaryRow[]>`
        SELECT ${SUMMARY_COLUMNS} FROM receipts
        WHERE ${and(scalar)}
        ORDER BY received_at DESC, id DESC
        LIMIT ${limit}`;
    }
    const recent = await this.prisma.client.$queryRaw<ReceiptSummaryRow[]>`
      SELECT ${SUMMARY_COLUMNS} FROM (
        SELECT * FROM receipts
        WHERE ${and(scalar)}
        ORDER BY received_at DESC, id DESC
        LIMIT ${recentWindow}
      ) recent
      WHERE ${and(arrays)}
      ORDER BY received_at DESC, id DESC
      LIMIT ${limit}`;
    if (recent.length === limit) return recent;
    // Sorting by an expression keeps the planner off the time index: the GIN indexes find the
    // (few, by now) matches and only those are sorted.
    return this.prisma.client.$queryRaw<ReceiptSummaryRow[]>`
      SELECT ${SUMMARY_COLUMNS} FROM receipts
      WHERE ${and([...scalar, ...arrays])}
      ORDER BY received_at + interval '0' DESC, id DESC
      LIMIT ${limit}`;
  }

  /** A page of a gateway's chain in seq order, after `afterSeq`. */
  async chainPage(gateway: string, afterSeq: bigint, limit: number): Promise<ChainLinkRow[]> {
    return this.prisma.client.$queryRaw<ChainLinkRow[]>`
      SELECT seq, id, hash, prev_hash AS "prevHash", body FROM receipts
      WHERE gateway = ${gateway} AND seq > ${afterSeq}
      ORDER BY seq
      LIMIT ${limit}`;
  }
}

/** A receipt id of the batch was stored by another gateway while the batch was being written. */
export class ReceiptIdTakenError extends Error {
  constructor() {
    super('a receipt id of the batch was stored concurrently by another gateway');
    this.name = 'ReceiptIdTakenError';
  }
}

/**
 * One statement for the whole batch. Columns travel as arrays zipped by `ROWS FROM`; the bodies
 * travel as one JSON array text, parsed once by PostgreSQL (an array of JSON strings would be
 * escaped by the driver and unescaped by `array_in`, which costs more than the jsonb parse).
 */
function insertStatement(gateway: string, rows: ReadonlyArray<NewReceiptRow>): Prisma.Sql {
  const column = <K extends keyof NewReceiptRow>(key: K) => rows.map((row) => row[key]);
  // text[][] cannot be unnested row by row (arrays are rectangular and unnest flattens them),
  // so each row's array travels as an array literal and is cast back.
  const literals = (key: 'tools' | 'rules' | 'policies') =>
    rows.map((row) => arrayLiteral(row[key]));
  const bodies = `[${rows.map((row) => row.body).join(',')}]`;
  return Prisma.sql`
    INSERT INTO receipts (id, gateway, seq, received_at, surface, model, stream, status, outcome,
      identity_human, identity_service, identity_session, binding, tools, rules, policies,
      prev_hash, hash, body)
    SELECT u.id, ${gateway}, u.seq, u.received_at, u.surface, u.model, u.stream, u.status,
      u.outcome, u.identity_human, u.identity_service, u.identity_session, u.binding,
      u.tools::text[], u.rules::text[], u.policies::text[], u.prev_hash, u.hash, u.body
    FROM ROWS FROM (
      unnest(${column('id')}::text[]), unnest(${rows.map((row) => row.seq.toString())}::bigint[]),
      unnest(${column('receivedAt')}::timestamptz[]), unnest(${column('surface')}::text[]),
      unnest(${column('model')}::text[]), unnest(${column('stream')}::boolean[]),
      unnest(${column('status')}::int[]), unnest(${column('outcome')}::text[]),
      unnest(${column('identityHuman')}::text[]), unnest(${column('identityService')}::text[]),
      unnest(${column('identitySession')}::text[]), unnest(${column('binding')}::text[]),
      unnest(${literals('tools')}::text[]), unnest(${literals('rules')}::text[]),
      unnest(${literals('policies')}::text[]), unnest(${column('prevHash')}::text[]),
      unnest(${column('hash')}::text[]), jsonb_array_elements(${bodies}::jsonb)
    ) AS u(id, seq, received_at, surface, model, stream, status, outcome, identity_human,
      identity_service, identity_session, binding, tools, rules, policies, prev_hash, hash, body)`;
}

function isUniqueViolation(error: unknown): boolean {
  const cause = (error as { meta?: { driverAdapterError?: { cause?: { originalCode?: string } } } })
    ?.meta?.driverAdapterError?.cause;
  return cause?.originalCode === '23505';
}

/** PostgreSQL array literal: `{"a","b \"quoted\""}`. */
function arrayLiteral(values: ReadonlyArray<string>): string {
  return `{${values.map((value) => `"${value.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
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
  if (filter.outcome !== undefined) conditions.push(Prisma.sql`outcome = ${filter.outcome}`);
  if (filter.since !== undefined) {
    conditions.push(Prisma.sql`received_at >= ${filter.since}::timestamptz`);
  }
  if (filter.until !== undefined) {
    conditions.push(Prisma.sql`received_at < ${filter.until}::timestamptz`);
  }
  if (filter.before !== undefined) {
    const { receivedAt, id } = filter.before;
    conditions.push(Prisma.sql`(received_at, id) < (${receivedAt}::timestamptz, ${id})`);
  }
  return conditions;
}

function arrayConditions(filter: ReceiptFilter): Prisma.Sql[] {
  const conditions: Prisma.Sql[] = [];
  if (filter.tool !== undefined) conditions.push(Prisma.sql`tools @> ARRAY[${filter.tool}::text]`);
  if (filter.policy !== undefined) {
    conditions.push(Prisma.sql`policies @> ARRAY[${filter.policy}::text]`);
  }
  if (filter.qualifiedRule !== undefined) {
    conditions.push(Prisma.sql`rules @> ARRAY[${filter.qualifiedRule}::text]`);
  }
  if (filter.ruleId !== undefined) {
    // A bare rule id means `<policy>/<id>` for every policy that ever had a rule with that id
    // (revisions are kept forever), plus the bare id itself (a rule recorded without its
    // policy). Resolved to a short list first so the GIN index on `rules` still applies.
    const id = filter.ruleId;
    conditions.push(Prisma.sql`rules && (
      SELECT coalesce(array_agg(DISTINCT name || '/' || ${id}::text), '{}') || ARRAY[${id}::text]
      FROM policy_revisions
      WHERE spec -> 'rules' @> jsonb_build_array(jsonb_build_object('id', ${id}::text)))`);
  }
  return conditions;
}

function and(conditions: Prisma.Sql[]): Prisma.Sql {
  return conditions.length === 0 ? Prisma.sql`TRUE` : Prisma.join(conditions, ' AND ');
}
