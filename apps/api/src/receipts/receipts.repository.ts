import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import type { ReceiptStandIn } from '@toolgate/contract';
import {
  ConflictError,
  expandReceipt,
  type Receipt,
  type StoredReceipt,
  type ToolSet,
  toolSetHash,
} from '@toolgate/core';
import pg from 'pg';
import { PrismaService } from '../database/prisma.service.ts';
import { arrayLiteral } from './array-literal.ts';
import type { ReceiptColumns } from './receipt-columns.ts';
import { insertStatement, RECORD_SEPARATOR } from './receipt-insert-statement.ts';
import type { ToolLinkRow } from './receipt-tool-links.ts';

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
  /** The receipt as the gateway sent it, in `JSON.stringify`'s text (no raw control characters). */
  body: string;
  /** The tool set a v2 receipt references; null for v1 (tool set inline). */
  toolSetHash: string | null;
  /** Its calls and results, for the call-to-result links (receipt-tool-links.ts). */
  toolLinks?: ReadonlyArray<ToolLinkRow>;
}

/**
 * The link of a receipt the gateway quarantined (docs/receipts.md): stored in `receipt_links`
 * only, with the stand-in as sent in `stand_in`; its body stays in the gateway's quarantine file.
 */
export interface NewStandInRow {
  id: string;
  seq: bigint;
  receivedAt: string;
  hash: string;
  standIn: ReceiptStandIn;
}

/** Rows an ingest's plan decided to write: receipts (with their links) and stand-ins. */
export interface ChainChunk {
  rows: NewReceiptRow[];
  standIns?: NewStandInRow[];
}

/** What an ingest's plan decides to write, all at once. */
export interface ChainAppend<T> extends ChainChunk {
  result: T;
}

/**
 * A plan: everything at once, or a generator yielding chunks as it decides them and returning
 * the result. Each chunk is sent to PostgreSQL as soon as it is yielded, so the database writes
 * one chunk while the plan decides the next (on two cores, checking and writing overlap).
 */
export type ChainPlan<T> = ChainAppend<T> | Generator<ChainChunk, T, void>;

/** Stored receipts: the hash-chained ingest and single receipts (chain walks: ChainLinksRepository). */
@Injectable()
export class ReceiptsRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  /**
   * A receipt in its served form: a v2 receipt gets back inline the tool set its body (what the
   * chain hashes) references, not whatever a column says, so what is served is what verify checks.
   */
  async find(id: string): Promise<{ seq: string; receipt: Receipt } | undefined> {
    const [row] = await this.prisma.client.$queryRaw<
      Array<{ seq: bigint; body: unknown; toolSet: ToolSet | null }>
    >`
      SELECT l.seq, r.body, t.body AS "toolSet" FROM receipt_links l
      JOIN receipts r ON r.id = l.id AND r.received_at = l.received_at
      LEFT JOIN tool_sets t ON t.hash = r.body ->> 'tool_set_hash'
      WHERE l.id = ${id}`;
    if (row === undefined) return undefined;
    const referenced = (row.body as Partial<StoredReceipt>).tool_set_hash;
    if (referenced === undefined) return { seq: row.seq.toString(), receipt: row.body as Receipt };
    // Content addressing makes the hash the check: a tool set that is gone, or whose body no
    // longer hashes to its address, is never served as this receipt's tools.
    const problem =
      row.toolSet === null
        ? 'is missing from the database'
        : toolSetHash(row.toolSet) !== referenced
          ? 'no longer matches its hash (altered in the database)'
          : undefined;
    if (problem !== undefined)
      throw new ConflictError(
        'Receipt',
        id,
        `its tool set ${referenced} ${problem}; run \`toolgate receipts verify\``,
      );
    return {
      seq: row.seq.toString(),
      receipt: expandReceipt(row.body as StoredReceipt, row.toolSet as ToolSet),
    };
  }

  /**
   * One round trip for a batch's tool sets: which of `sent` are stored already (hashes only,
   * their bodies stay in the database), and the stored bodies of `referenced`.
   */
  async toolSetsOfBatch(
    sent: ReadonlyArray<string>,
    referenced: ReadonlyArray<string>,
  ): Promise<{ storedSent: Set<string>; bodies: Map<string, ToolSet> }> {
    if (sent.length === 0 && referenced.length === 0) {
      return { storedSent: new Set(), bodies: new Map() };
    }
    const { rows } = await this.prisma.pool.query<{ hash: string; body: ToolSet | null }>({
      text: `SELECT hash, CASE WHEN hash = ANY($2::text[]) THEN body END AS body
               FROM tool_sets WHERE hash = ANY($1::text[]) OR hash = ANY($2::text[])`,
      values: [sent, referenced],
    });
    const storedSent = new Set<string>();
    const bodies = new Map<string, ToolSet>();
    const sentSet = new Set(sent);
    for (const row of rows) {
      if (sentSet.has(row.hash)) storedSent.add(row.hash);
      if (row.body !== null) bodies.set(row.hash, row.body);
    }
    return { storedSent, bodies };
  }

  /**
   * Appends to a gateway's chain in one transaction: takes the gateway's chain lock (concurrent
   * ingests of one gateway queue up, other gateways are not held), reads the chain head and
   * which of `ids` are already stored (both from `receipt_links`), lets `plan` decide, and
   * inserts the rows it returns, with their links, chunk by chunk. Nothing of the chain is
   * written if anything fails.
   *
   * The tool sets of `toolSets` (hash → JSON text) are stored by a statement of their own on
   * another connection, at the same time: on the transaction's connection the receipts' chunks
   * used to queue behind them. The transaction commits only once they are stored, so every
   * stored receipt's tool set is there; sets stored for a batch that then fails stay (they are
   * checked and content-addressed, belong to no gateway, and the batch's retry needs them).
   */
  async appendToChain<T>(
    gateway: string,
    ids: ReadonlyArray<string>,
    toolSets: ReadonlyMap<string, string>,
    plan: (state: ChainState) => ChainPlan<T>,
  ): Promise<T> {
    // Asked for before the transaction's connection: the pool hands connections out in the
    // order they were asked for, so this statement never waits for a connection held by a
    // transaction that waits for it, however busy the pool.
    const toolSetsStored = this.storeToolSets(toolSets);
    // Awaited before the commit; a batch failing before that reports its own error.
    toolSetsStored.catch(() => undefined);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.appendOnce(gateway, ids, toolSetsStored, plan);
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

  /**
   * Every valid tool set sent is kept, even when the receipt it came with was not created
   * (rejected, duplicate): later receipts of the gateway rely on it being stored. In hash order,
   * so two batches sharing tool sets queue up on the first one they share instead of each
   * waiting on a row the other inserted (a deadlock). Sets already stored are skipped before
   * their JSON is parsed. Their texts travel like the receipts' bodies (insertStatement).
   */
  private async storeToolSets(toolSets: ReadonlyMap<string, string>): Promise<void> {
    if (toolSets.size === 0) return;
    await this.prisma.pool.query(
      `INSERT INTO tool_sets (hash, body)
       SELECT u.hash, u.body::jsonb
       FROM ROWS FROM (unnest($1::text[]), string_to_table($2::text, E'\\x1e')) AS u(hash, body)
       WHERE NOT EXISTS (SELECT FROM tool_sets t WHERE t.hash = u.hash)
       ORDER BY u.hash
       ON CONFLICT (hash) DO NOTHING`,
      [arrayLiteral([...toolSets.keys()]), [...toolSets.values()].join(RECORD_SEPARATOR)],
    );
  }

  /**
   * How long a transaction, holding its gateway's chain lock, waits for its tool sets' statement.
   * That wait runs through this process, where PostgreSQL's deadlock detector cannot see it:
   * nothing that writes tool sets takes a chain lock, so it cannot close a cycle, and should
   * anything ever do so the bound breaks it (the batch fails and is retried). Tests shorten it.
   */
  toolSetsWaitMs = TRANSACTION_TIMEOUT_MS;

  private async untilStored(toolSetsStored: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(`the batch's tool sets were not stored within ${this.toolSetsWaitMs} ms`),
          ),
        this.toolSetsWaitMs,
      );
    });
    try {
      await Promise.race([toolSetsStored, bound]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async appendOnce<T>(
    gateway: string,
    ids: ReadonlyArray<string>,
    toolSetsStored: Promise<void>,
    plan: (state: ChainState) => ChainPlan<T>,
  ): Promise<T> {
    // node-postgres directly, not `$transaction`: Prisma passes every parameter through its
    // WebAssembly query compiler, which cost more than PostgreSQL's own work on a batch's
    // megabytes of bodies and tool sets.
    const client = await this.prisma.pool.connect();
    let broken: Error | undefined;
    // A checked-out client that loses its connection (a database restart) emits `error`; with
    // no listener that would be an uncaught exception. The failing query rejects as well.
    const lost = (error: Error) => {
      broken = error;
    };
    client.on('error', lost);
    try {
      await client.query(`BEGIN; SET LOCAL statement_timeout = ${TRANSACTION_TIMEOUT_MS}`);
      try {
        const result = await appendInTransaction(client, gateway, ids, plan);
        await this.untilStored(toolSetsStored);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackFailed: Error) => {
          broken = rollbackFailed;
        });
        throw error;
      }
    } finally {
      client.off('error', lost);
      // A connection that was lost, or whose rollback failed, is in an unknown state: the pool
      // drops it.
      client.release(broken);
    }
  }
}

/** The appending transaction's statements, on a connection in a transaction. */
async function appendInTransaction<T>(
  client: pg.PoolClient,
  gateway: string,
  ids: ReadonlyArray<string>,
  plan: (state: ChainState) => ChainPlan<T>,
): Promise<T> {
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`receipts:${gateway}`]);
  const heads = await client.query<{ seq: string; hash: string }>(
    'SELECT seq, hash FROM receipt_links WHERE gateway = $1 ORDER BY seq DESC LIMIT 1',
    [gateway],
  );
  const stored =
    ids.length === 0
      ? []
      : (
          await client.query<{ id: string; hash: string }>(
            'SELECT id, hash FROM receipt_links WHERE id = ANY($1::text[])',
            [arrayLiteral(ids)],
          )
        ).rows;
  const head = heads.rows[0];
  const planned = plan({
    head: head && { seq: BigInt(head.seq), hash: head.hash },
    stored: new Map(stored.map((row) => [row.id, row.hash])),
  });
  // Each statement is sent as soon as the one before it is done, without waiting for the plan:
  // PostgreSQL writes one chunk while the plan decides the next. The first failure is the one
  // reported; nothing is sent after it.
  let written: Promise<void> = Promise.resolve();
  let failure: unknown;
  const send = (text: string, values: string[]) => {
    written = written.then(async () => {
      if (failure !== undefined) return;
      await client.query(text, values).catch((error: unknown) => {
        failure = error;
      });
    });
  };
  const write = ({ rows, standIns = [] }: ChainChunk) => {
    if (rows.length > 0) {
      const insert = insertStatement(gateway, rows);
      send(insert.text, insert.values);
    }
    if (standIns.length > 0) {
      // Links only: the receipt's body is on the gateway, so there is no `receipts` row.
      send(
        `INSERT INTO receipt_links (id, gateway, seq, received_at, hash, stand_in)
         SELECT u.id, $1, u.seq, u.received_at, u.hash, u.stand_in::jsonb
         FROM ROWS FROM (unnest($2::text[]), unnest($3::bigint[]), unnest($4::timestamptz[]),
           unnest($5::text[]), string_to_table($6::text, E'\\x1e'))
           AS u(id, seq, received_at, hash, stand_in)`,
        [
          gateway,
          arrayLiteral(standIns.map((row) => row.id)),
          arrayLiteral(standIns.map((row) => row.seq.toString())),
          arrayLiteral(standIns.map((row) => row.receivedAt)),
          arrayLiteral(standIns.map((row) => row.hash)),
          standIns.map((row) => JSON.stringify(row.standIn)).join(RECORD_SEPARATOR),
        ],
      );
    }
  };
  let result: T | undefined;
  if ('result' in planned) {
    write(planned);
    result = planned.result;
  } else {
    for (;;) {
      const step = planned.next();
      if (step.done) {
        result = step.value;
        break;
      }
      write(step.value);
      // A turn of the event loop: the socket takes more of what was queued and the database's
      // answers are read before the next chunk is decided.
      await setImmediate();
      if (failure !== undefined) break;
    }
  }
  await written;
  // Ids were checked under the lock, so only another gateway's concurrent batch with one of
  // the same ids gets here (its lock is not ours). No `ON CONFLICT`: the speculative insertion
  // it needs costs a third of the statement on every batch.
  if (isUniqueViolation(failure)) throw new ReceiptIdTakenError();
  if (failure !== undefined) throw failure;
  return result as T;
}

/** A receipt id of the batch was stored by another gateway while the batch was being written. */
export class ReceiptIdTakenError extends Error {
  constructor() {
    super('a receipt id of the batch was stored concurrently by another gateway');
    this.name = 'ReceiptIdTakenError';
  }
}

const UNIQUE_VIOLATION = '23505';
const DEADLOCK_DETECTED = '40P01';
const DEADLOCK_ATTEMPTS = 3;
const DEADLOCK_BACKOFF_MS = 20;
const TRANSACTION_TIMEOUT_MS = 60_000;

/** The SQLSTATE of a PostgreSQL error (node-postgres reports it as `code`). */
function postgresErrorCode(error: unknown): string | undefined {
  return error instanceof pg.DatabaseError ? error.code : undefined;
}

function isUniqueViolation(error: unknown): boolean {
  return postgresErrorCode(error) === UNIQUE_VIOLATION;
}
