import type { Receipt, ToolSet } from '@toolgate/core';
import { compactReceipt } from '@toolgate/core';
import { createTestDatabase } from '@toolgate/db/testing';
import pg from 'pg';
import { receiptColumns } from '../apps/api/src/receipts/receipt-columns.ts';

/**
 * The rows `pnpm bench api-receipts` lands without the API: what the API would store for a
 * round of receipts (`StoredRows`), as `COPY FROM STDIN` texts, and the COPY sinks — the real,
 * indexed tables, or unindexed copies of them (the floor).
 */

/** A database a variant of the bench writes into. */
export interface Sink {
  url: string;
  close(): Promise<void>;
}

const COPY_COLUMNS = [
  'id',
  'gateway',
  'seq',
  'received_at',
  'surface',
  'model',
  'stream',
  'status',
  'outcome',
  'identity_human',
  'identity_service',
  'identity_session',
  'binding',
  'tools',
  'rules',
  'policies',
  'prev_hash',
  'hash',
  'tool_set_hash',
  'body',
];

/**
 * What the API stores for receipts, computed the way the API does: per receipt its columns
 * (per-gateway seq) and stored body, its link, and its tool set the first time it is seen.
 */
export class StoredRows {
  private readonly seqs = new Map<string, number>();
  private readonly toolSets = new Set<string>();

  get toolSetHashes(): ReadonlySet<string> {
    return this.toolSets;
  }

  of(receipts: ReadonlyArray<Receipt>) {
    const toolSets: Array<{ hash: string; body: ToolSet }> = [];
    const rows = receipts.map((receipt) => {
      const seq = (this.seqs.get(receipt.gateway) ?? 0) + 1;
      this.seqs.set(receipt.gateway, seq);
      const { stored, toolSet } = compactReceipt(receipt);
      if (!this.toolSets.has(stored.tool_set_hash)) {
        this.toolSets.add(stored.tool_set_hash);
        toolSets.push({ hash: stored.tool_set_hash, body: toolSet });
      }
      return { ...receiptColumns(receipt), seq, receipt: stored };
    });
    return { toolSets, rows };
  }
}

export type StoredRound = ReturnType<StoredRows['of']>;

/** `COPY … FROM STDIN` texts for a round, in the order they load (tool sets before receipts). */
export function copyTexts({
  toolSets,
  rows,
}: StoredRound): Array<{ table: string; chunks: string[] }> {
  const array = (values: string[]) =>
    `{${values.map((v) => `"${v.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
  return [
    {
      table: 'tool_sets (hash, body)',
      chunks: copyText(toolSets.map((set) => [set.hash, JSON.stringify(set.body)])),
    },
    {
      table: 'receipt_links (id, gateway, seq, received_at, hash)',
      chunks: copyText(
        rows.map((row) => [row.id, row.gateway, String(row.seq), row.receivedAt, row.hash]),
      ),
    },
    {
      table: `receipts (${COPY_COLUMNS.join(', ')})`,
      chunks: copyText(
        rows.map((row) => [
          row.id,
          row.gateway,
          String(row.seq),
          row.receivedAt,
          row.surface,
          row.model,
          row.stream ? 't' : 'f',
          String(row.status),
          row.outcome,
          row.identityHuman,
          row.identityService,
          row.identitySession,
          row.binding,
          array(row.tools),
          array(row.rules),
          array(row.policies),
          row.prevHash,
          row.hash,
          row.receipt.tool_set_hash,
          JSON.stringify(row.receipt),
        ]),
      ),
    },
  ];
}

/** PostgreSQL COPY text format: tab-separated, `\N` for null, backslash escapes; ~1 MB chunks. */
function copyText(rows: ReadonlyArray<ReadonlyArray<string | null>>): string[] {
  const esc = (value: string | null) =>
    value === null ? '\\N' : value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c] as string);
  const chunks: string[] = [];
  let chunk = '';
  for (const row of rows) {
    chunk += `${row.map(esc).join('\t')}\n`;
    if (chunk.length > 1 << 20) {
      chunks.push(chunk);
      chunk = '';
    }
  }
  if (chunk) chunks.push(chunk);
  return chunks;
}
const COPY_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
};

/**
 * `COPY … FROM STDIN` as a pg "submittable": pg hands it the connection when the server asks
 * for the data (pg-copy-streams does the same as a stream; the data here is already in memory).
 */
class CopyIn {
  readonly done: Promise<void>;
  private resolve!: () => void;
  private reject!: (error: Error) => void;

  constructor(
    private readonly text: string,
    private readonly chunks: ReadonlyArray<string>,
  ) {
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  submit(connection: {
    query(text: string): void;
    sendCopyFromChunk(chunk: Buffer): void;
    endCopyFrom(): void;
  }): void {
    connection.query(this.text);
  }

  handleCopyInResponse(connection: {
    sendCopyFromChunk(chunk: Buffer): void;
    endCopyFrom(): void;
  }): void {
    for (const chunk of this.chunks) connection.sendCopyFromChunk(Buffer.from(chunk));
    connection.endCopyFrom();
  }

  handleCommandComplete(): void {}

  handleReadyForQuery(): void {
    this.resolve();
  }

  /** node-postgres lets go of a query as its error arrives (the ReadyForQuery after it goes to nobody). */
  handleError(error: Error): void {
    this.reject(error);
  }
}

/** What the floor's unindexed copies of the tables are called: `receipts_floor` and so on. */
export const FLOOR_SUFFIX = '_floor';
const FLOOR_TABLES = ['tool_sets', 'receipt_links', 'receipts'];

/**
 * A plain database loaded with COPY: into the real tables (keys, indexes, partitions), or,
 * `unindexed`, into copies of them without any index or key (`LIKE … INCLUDING DEFAULTS` keeps
 * the columns, NOT NULLs and defaults, and makes an ordinary table of the partitioned
 * `receipts`). `parallel`: each table on a connection of its own, all at once, each in its own
 * transaction (the API writes a batch's tool sets beside its receipts' transaction, so the floor
 * may use as many connections, and more); otherwise one connection, the round in one
 * transaction. The unindexed tables, in parallel, are the floor: the fastest way found to land
 * the rows.
 */
export async function copySink(
  adminUrl: string,
  { unindexed, parallel }: { unindexed: boolean; parallel: boolean },
): Promise<Sink & { load(copies: ReturnType<typeof copyTexts>): Promise<void> }> {
  const database = await createTestDatabase(adminUrl);
  const clients = await Promise.all(
    Array.from({ length: parallel ? FLOOR_TABLES.length : 1 }, async () => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      return client;
    }),
  );
  const [first] = clients as [pg.Client];
  if (unindexed) {
    for (const table of FLOOR_TABLES) {
      await first.query(`CREATE TABLE ${table}${FLOOR_SUFFIX} (LIKE ${table} INCLUDING DEFAULTS)`);
    }
  }
  const target = (table: string) =>
    unindexed ? table.replace(/^(\w+)/, `$1${FLOOR_SUFFIX}`) : table;
  const copyAll = async (client: pg.Client, copies: ReturnType<typeof copyTexts>) => {
    await client.query('BEGIN');
    for (const { table, chunks } of copies) {
      const copy = new CopyIn(`COPY ${target(table)} FROM STDIN`, chunks);
      client.query(copy as unknown as pg.QueryConfig);
      await copy.done;
    }
    await client.query('COMMIT');
  };
  return {
    url: database.url,
    async load(copies) {
      if (!parallel) return copyAll(first, copies);
      await Promise.all(copies.map((copy, i) => copyAll(clients[i] as pg.Client, [copy])));
    },
    async close() {
      await Promise.all(clients.map((client) => client.end()));
      await database.drop();
    },
  };
}
