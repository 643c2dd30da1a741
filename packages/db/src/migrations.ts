import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** `prisma/migrations` of this repository. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../prisma/migrations', import.meta.url));

/** The advisory lock `prisma migrate` takes, so our runner and Prisma's exclude each other. */
const PRISMA_MIGRATE_LOCK = 72707369;

/** Prisma's own DDL for its history table (schema engine, postgres flavour), verbatim. */
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
);`;

export interface ApplyMigrationsOptions {
  /** Defaults to the repository's `prisma/migrations`. */
  migrationsDir?: string;
  /** Receives one line per applied migration. */
  log?: (line: string) => void;
}

export interface ApplyMigrationsResult {
  /** Names of the migrations applied by this call, in order; empty when up to date. */
  applied: string[];
}

/** A migration directory on disk. */
export interface MigrationFile {
  name: string;
  script: string;
  checksum: string;
}

interface MigrationRow {
  id: string;
  migration_name: string;
  checksum: string;
  started_at: Date;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  logs: string | null;
}

/**
 * Applies pending migrations the way `prisma migrate deploy` does, without Prisma's native
 * schema engine (which cannot be downloaded everywhere we run): same lock, same
 * `_prisma_migrations` table and rows, so a machine with the engine can take over.
 *
 * Stricter than `migrate deploy` in two ways: each migration runs in its own transaction (a
 * failure leaves nothing half-applied), and an applied migration whose file has changed is
 * refused instead of silently ignored. A failed attempt is recorded with its error in `logs`
 * and, since its transaction rolled back, as rolled back: fix the file and run again.
 */
export async function applyMigrations(
  databaseUrl: string,
  options: ApplyMigrationsOptions = {},
): Promise<ApplyMigrationsResult> {
  const migrations = await readMigrations(options.migrationsDir ?? MIGRATIONS_DIR);
  const log = options.log ?? (() => {});
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Blocks while another runner (ours or Prisma's) migrates the same database.
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATE_LOCK]);
    await client.query(CREATE_MIGRATIONS_TABLE);
    const rows = await client.query<MigrationRow>(
      'SELECT id, migration_name, checksum, started_at, finished_at, rolled_back_at, logs FROM _prisma_migrations ORDER BY started_at',
    );
    const applied = checkHistory(rows.rows, migrations);
    const pending = migrations.filter((migration) => !applied.has(migration.name));
    for (const migration of pending) {
      const started = performance.now();
      await applyOne(client, migration);
      log(`applied ${migration.name} (${Math.round(performance.now() - started)} ms)`);
    }
    return { applied: pending.map((migration) => migration.name) };
  } finally {
    // Ending the session releases the advisory lock too; unlocking first is just tidier.
    await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATE_LOCK]).catch(() => {});
    await client.end();
  }
}

/**
 * Migrations in `dir`, in name order (the timestamp prefix), like Prisma: every directory is a
 * migration and must hold `migration.sql`; `migration_lock.toml` must name postgresql.
 */
export async function readMigrations(dir: string): Promise<MigrationFile[]> {
  const lockFile = join(dir, 'migration_lock.toml');
  if (existsSync(lockFile)) {
    const provider = /^\s*provider\s*=\s*"([^"]*)"/m.exec(await readFile(lockFile, 'utf8'))?.[1];
    if (provider !== 'postgresql') {
      throw new Error(`${lockFile} names provider "${provider}", expected "postgresql"`);
    }
  }
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const file = join(dir, name, 'migration.sql');
      if (!existsSync(file)) throw new Error(`migration ${name} has no migration.sql (${file})`);
      const bytes = await readFile(file);
      return { name, script: bytes.toString('utf8'), checksum: migrationChecksum(bytes) };
    }),
  );
}

/** What Prisma stores in `_prisma_migrations.checksum`: sha256 of the file, lowercase hex. */
export function migrationChecksum(script: string | Uint8Array): string {
  return createHash('sha256').update(script).digest('hex');
}

/**
 * Refuses a history Prisma would refuse (a failed migration that is not rolled back) and one
 * whose applied files were edited since; returns the names already applied.
 */
function checkHistory(rows: MigrationRow[], migrations: MigrationFile[]): Set<string> {
  const live = rows.filter((row) => row.rolled_back_at === null);
  const failed = live.filter((row) => row.finished_at === null);
  if (failed.length > 0) {
    const details = failed
      .map((row) => {
        const logs = row.logs?.trim() ? ` with the following logs:\n${row.logs.trim()}` : '';
        return `The \`${row.migration_name}\` migration started at ${row.started_at.toISOString()} failed${logs}`;
      })
      .join('\n');
    throw new Error(
      `Migrations cannot be applied: the database has failed migrations.\n${details}\n` +
        'Repair the database by hand, then mark each one rolled back (`prisma migrate resolve ' +
        '--rolled-back <name>`, or `UPDATE _prisma_migrations SET rolled_back_at = now() WHERE id = ...`).',
    );
  }
  const byName = new Map(migrations.map((migration) => [migration.name, migration]));
  const changed = live.filter((row) => {
    const file = byName.get(row.migration_name);
    return file !== undefined && !checksumMatches(file.script, row.checksum);
  });
  if (changed.length > 0) {
    throw new Error(
      `Migrations cannot be applied: ${changed.length === 1 ? 'an applied migration was' : 'applied migrations were'} modified after being applied: ` +
        `${changed.map((row) => row.migration_name).join(', ')}.\n` +
        'Restore the original migration.sql and put the change in a new migration.',
    );
  }
  return new Set(live.map((row) => row.migration_name));
}

/** Like Prisma, accept a checksum taken with the other line-ending convention (git autocrlf). */
function checksumMatches(script: string, checksum: string): boolean {
  const variants = [script, script.replaceAll('\r\n', '\n'), script.replaceAll('\n', '\r\n')];
  return variants.some((variant) => migrationChecksum(variant) === checksum);
}

async function applyOne(client: pg.Client, migration: MigrationFile): Promise<void> {
  const id = randomUUID();
  await client.query('BEGIN');
  try {
    await client.query(
      'INSERT INTO _prisma_migrations (id, checksum, started_at, migration_name) VALUES ($1, $2, clock_timestamp(), $3)',
      [id, migration.checksum, migration.name],
    );
    await client.query(migration.script);
    await client.query(
      'UPDATE _prisma_migrations SET applied_steps_count = applied_steps_count + 1, finished_at = clock_timestamp() WHERE id = $1',
      [id],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    const message = error instanceof Error ? error.message : String(error);
    await client.query(
      'INSERT INTO _prisma_migrations (id, checksum, started_at, migration_name, logs, rolled_back_at) VALUES ($1, $2, clock_timestamp(), $3, $4, clock_timestamp())',
      [id, migration.checksum, migration.name, message],
    );
    throw new Error(`Migration ${migration.name} failed and was rolled back: ${message}`, {
      cause: error,
    });
  }
}
