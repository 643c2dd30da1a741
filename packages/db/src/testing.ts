import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { postgresScratchDir, startEmbeddedPostgres } from './embedded-postgres.ts';
import { applyMigrations } from './migrations.ts';
import { listReceiptPartitions } from './receipt-partitions.ts';

export interface TestPostgres {
  /** URL of a maintenance database on the server; test databases are created through it. */
  adminUrl: string;
  /** Stops the cluster and deletes its directory (a no-op for a given `databaseUrl`). */
  teardown(): Promise<void>;
}

/**
 * One PostgreSQL server for a whole test run, for a vitest `globalSetup`. With `databaseUrl`
 * (the run's DATABASE_URL) that server is used as is; otherwise an embedded cluster starts in a
 * fresh temporary directory on a free port, tuned for speed over durability.
 */
export async function startTestPostgres(
  options: { databaseUrl?: string | undefined; log?: (line: string) => void } = {},
): Promise<TestPostgres> {
  if (options.databaseUrl) {
    return { adminUrl: options.databaseUrl, teardown: async () => {} };
  }
  const dir = await postgresScratchDir('toolgate-test-pg-');
  try {
    const server = await startEmbeddedPostgres({
      dataDir: join(dir, 'data'),
      ...(options.log ? { log: options.log } : {}),
      // Throwaway data: skip the flushes that make a crash-safe cluster slow.
      postgresFlags: ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'].flatMap(
        (setting) => ['-c', setting],
      ),
    });
    return {
      adminUrl: server.adminUrl,
      teardown: async () => {
        await server.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

export interface TestDatabase {
  /** Connection URL of the new database. */
  url: string;
  name: string;
  /** Drops the database, closing any connection still open on it. */
  drop(): Promise<void>;
}

/**
 * A uniquely named, empty database on the server behind `adminUrl`, with the repository's
 * migrations applied (unless `migrate: false`), so test files run in parallel without sharing
 * data. Create one per test file in `beforeAll` and drop it in `afterAll`.
 */
export async function createTestDatabase(
  adminUrl: string,
  options: { migrate?: boolean; migrationsDir?: string } = {},
): Promise<TestDatabase> {
  const name = `toolgate_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await withClient(adminUrl, (client) =>
    client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`),
  );
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database: TestDatabase = {
    url: url.toString(),
    name,
    drop: () =>
      withClient(adminUrl, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
      }),
  };
  if (options.migrate !== false) {
    try {
      await applyMigrations(
        database.url,
        options.migrationsDir ? { migrationsDir: options.migrationsDir } : {},
      );
    } catch (error) {
      await database.drop();
      throw error;
    }
  }
  return database;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The partitions of `receipts` in the database at `url`, by name. */
export function receiptPartitions(url: string): Promise<string[]> {
  return withClient(url, listReceiptPartitions);
}

/** The partition holding the receipt `id` (`receipts_2026_11`), if it is stored. */
export function receiptPartitionOf(url: string, id: string): Promise<string | undefined> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ partition: string }>(
      'SELECT tableoid::regclass::text AS partition FROM receipts WHERE id = $1',
      [id],
    );
    return rows[0]?.partition;
  });
}
