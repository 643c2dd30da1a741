import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { expandReceipt, type Receipt, type StoredReceipt, type ToolSet } from '@toolgate/core';
import { Prisma } from '@toolgate/db';
import { PrismaService } from '../database/prisma.service.ts';
import type { ReceiptColumns } from './receipt-columns.ts';

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

const RECORD_SEPARATOR = '\u001e';

/** A receipt ready to insert: its columns, its place in the chain and its JSON text. */
export interface NewReceiptRow extends ReceiptColumns {
  seq: bigint;
  /** The receipt as the gateway sent it, in `JSON.stringify`'s text (no raw control characters). */
  body: string;
  /** The tool set a v2 receipt references; null for v1 (tool set inline). */
  toolSetHash: string | null;
}

/** One link of a gateway's chain as stored, for verification. */
export interface ChainLinkRow {
  seq: bigint;
  id: string;
  hash: string;
  prevHash: string | null;
  body: unknown;
}

/** Stored receipts: the hash-chained ingest, single receipts and chain walks. */
@Injectable()
export class ReceiptsRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  /** A receipt in its served form: a v2 receipt gets its tool set back inline. */
  async find(id: string): Promise<{ seq: string; receipt: Receipt } | undefined> {
    const [row] = await this.prisma.client.$queryRaw<
      Array<{ seq: bigint; body: unknown; toolSet: ToolSet | null }>
    >`
      SELECT r.seq, r.body, t.body AS "toolSet" FROM receipt_links l
      JOIN receipts r ON r.id = l.id AND r.received_at = l.received_at
      LEFT JOIN tool_sets t ON t.hash = r.tool_set_hash
      WHERE l.id = ${id}`;
    if (row === undefined) return undefined;
    const receipt =
      row.toolSet === null
        ? (row.body as Receipt)
        : expandReceipt(row.body as StoredReceipt, row.toolSet);
    return { seq: row.seq.toString(), receipt };
  }

  /** Stored tool sets by hash (the ones found). */
  async toolSets(hashes: ReadonlyArray<string>): Promise<Map<string, ToolSet>> {
    if (hashes.length === 0) return new Map();
    const rows = await this.prisma.client.$queryRaw<Array<{ hash: string; body: ToolSet }>>`
      SELECT hash, body FROM tool_sets WHERE hash = ANY(${[...hashes]}::text[])`;
    return new Map(rows.map((row) => [row.hash, row.body]));
  }

  /**
   * Appends to a gateway's chain in one transaction: takes the gateway's chain lock (concurrent
   * ingests of one gateway queue up, other gateways are not held), reads the chain head and
   * which of `ids` are already stored (both from `receipt_links`), lets `plan` decide, and
   * inserts the rows it returns, with their links, in a single statement (one round trip for
   * the whole batch), after the
   * tool sets of `toolSets` (hash → JSON text). Nothing is written if anything fails.
   */
  async appendToChain<T>(
    gateway: string,
    ids: ReadonlyArray<string>,
    toolSets: ReadonlyMap<string, string>,
    plan: (state: ChainState) => { rows: NewReceiptRow[]; result: T },
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.appendOnce(gateway, ids, toolSets, plan);
      } catch (error) {
        // PostgreSQL broke a deadlock by aborting this transaction: nothing was written, and
        // everything is read again under the lock, so the batch can simply run again.
        if (postgresErrorCode(error) !== DEADLOCK_DETECTED || attempt >= DEADLOCK_ATTEMPTS) {
          throw error;
        }
        await sleep(DEADLOCK_BACKOFF_MS * attempt * (0.5 + Math.random()));
      }
    }
  }

  private appendOnce<T>(
    gateway: string,
    ids: ReadonlyArray<string>,
    toolSets: ReadonlyMap<string, string>,
    plan: (state: ChainState) => { rows: NewReceiptRow[]; result: T },
  ): Promise<T> {
    return this.prisma.client.$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`receipts:${gateway}`}))`;
        const heads = await tx.$queryRaw<ChainHead[]>`
          SELECT seq, hash FROM receipt_links WHERE gateway = ${gateway}
          ORDER BY seq DESC LIMIT 1`;
        const stored =
          ids.length === 0
            ? []
            : await tx.$queryRaw<Array<{ id: string; hash: string }>>`
                SELECT id, hash FROM receipt_links WHERE id = ANY(${[...ids]}::text[])`;
        const { rows, result } = plan({
          head: heads[0],
          stored: new Map(stored.map((row) => [row.id, row.hash])),
        });
        // Every valid tool set sent is kept, even when the receipt it came with was not created
        // (rejected, duplicate): later receipts of the gateway rely on it being stored.
        // In hash order, so two batches sharing tool sets queue up on the first one they share
        // instead of each waiting on a row the other inserted (a deadlock).
        if (toolSets.size > 0) {
          await tx.$executeRaw`
            INSERT INTO tool_sets (hash, body)
            SELECT u.hash, u.body::jsonb
            FROM unnest(${[...toolSets.keys()]}::text[], ${[...toolSets.values()]}::text[])
              AS u(hash, body)
            ORDER BY u.hash
            ON CONFLICT (hash) DO NOTHING`;
        }
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

  /** A page of a gateway's chain in seq order, after `afterSeq`. */
  async chainPage(gateway: string, afterSeq: bigint, limit: number): Promise<ChainLinkRow[]> {
    return this.prisma.client.$queryRaw<ChainLinkRow[]>`
      SELECT r.seq, r.id, r.hash, r.prev_hash AS "prevHash", r.body FROM (
        SELECT id, received_at FROM receipt_links
        WHERE gateway = ${gateway} AND seq > ${afterSeq}
        ORDER BY seq
        LIMIT ${limit}
      ) l
      JOIN receipts r ON r.id = l.id AND r.received_at = l.received_at
      ORDER BY r.seq`;
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
 * One statement for the whole batch: each receipt into its month's partition of `receipts`
 * and its link into `receipt_links`, whose keys (id; gateway and seq) are what makes both
 * unique across partitions. Columns travel as arrays zipped by `ROWS FROM`. The bodies
 * travel as one text, JSON texts separated by U+001E (JSON.stringify never writes a raw control
 * character, so the separator cannot occur inside a body), split by `string_to_table` and parsed
 * one by one: a third faster than one big JSON array through `jsonb_array_elements`, and three
 * times faster than a text[] (which the driver escapes and `array_in` unescapes).
 */
function insertStatement(gateway: string, rows: ReadonlyArray<NewReceiptRow>): Prisma.Sql {
  const column = <K extends keyof NewReceiptRow>(key: K) => rows.map((row) => row[key]);
  // text[][] cannot be unnested row by row (arrays are rectangular and unnest flattens them),
  // so each row's array travels as an array literal and is cast back.
  const literals = (key: 'tools' | 'rules' | 'policies') =>
    rows.map((row) => arrayLiteral(row[key]));
  const bodies = rows.map((row) => row.body).join(RECORD_SEPARATOR);
  return Prisma.sql`
    WITH u AS MATERIALIZED (
      SELECT * FROM ROWS FROM (
        unnest(${column('id')}::text[]), unnest(${rows.map((row) => row.seq.toString())}::bigint[]),
        unnest(${column('receivedAt')}::timestamptz[]), unnest(${column('surface')}::text[]),
        unnest(${column('model')}::text[]), unnest(${column('stream')}::boolean[]),
        unnest(${column('status')}::int[]), unnest(${column('outcome')}::text[]),
        unnest(${column('identityHuman')}::text[]), unnest(${column('identityService')}::text[]),
        unnest(${column('identitySession')}::text[]), unnest(${column('binding')}::text[]),
        unnest(${literals('tools')}::text[]), unnest(${literals('rules')}::text[]),
        unnest(${literals('policies')}::text[]), unnest(${column('prevHash')}::text[]),
        unnest(${column('hash')}::text[]), unnest(${column('toolSetHash')}::text[]),
        string_to_table(${bodies}::text, E'\\x1e')
      ) AS u(id, seq, received_at, surface, model, stream, status, outcome, identity_human,
        identity_service, identity_session, binding, tools, rules, policies, prev_hash, hash,
        tool_set_hash, body)
    ), links AS (
      INSERT INTO receipt_links (id, gateway, seq, received_at, hash)
      SELECT u.id, ${gateway}, u.seq, u.received_at, u.hash FROM u
    )
    INSERT INTO receipts (id, gateway, seq, received_at, surface, model, stream, status, outcome,
      identity_human, identity_service, identity_session, binding, tools, rules, policies,
      prev_hash, hash, tool_set_hash, body)
    SELECT u.id, ${gateway}, u.seq, u.received_at, u.surface, u.model, u.stream, u.status,
      u.outcome, u.identity_human, u.identity_service, u.identity_session, u.binding,
      u.tools::text[], u.rules::text[], u.policies::text[], u.prev_hash, u.hash, u.tool_set_hash,
      u.body::jsonb
    FROM u`;
}

const UNIQUE_VIOLATION = '23505';
const DEADLOCK_DETECTED = '40P01';
const DEADLOCK_ATTEMPTS = 3;
const DEADLOCK_BACKOFF_MS = 20;

/** The SQLSTATE of a PostgreSQL error as Prisma's driver adapter reports it. */
function postgresErrorCode(error: unknown): string | undefined {
  const meta = (
    error as {
      meta?: { code?: string; driverAdapterError?: { cause?: { originalCode?: string } } };
    }
  )?.meta;
  return meta?.driverAdapterError?.cause?.originalCode ?? meta?.code;
}

function isUniqueViolation(error: unknown): boolean {
  return postgresErrorCode(error) === UNIQUE_VIOLATION;
}

/** PostgreSQL array literal: `{"a","b \"quoted\""}`. */
function arrayLiteral(values: ReadonlyArray<string>): string {
  return `{${values.map((value) => `"${value.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}
