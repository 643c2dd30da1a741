import { createHash } from 'node:crypto';
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { applyMigrations, MIGRATIONS_DIR, readMigrations } from './migrations.ts';
import { createTestDatabase, type TestDatabase } from './testing.ts';

const adminUrl = inject('databaseAdminUrl');
const cleanups: (() => Promise<void>)[] = [];
afterAll(() => Promise.all(cleanups.map((cleanup) => cleanup())));

async function emptyDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase(adminUrl, { migrate: false });
  cleanups.push(database.drop);
  return database;
}

/** A copy of the repository's migrations that a test may edit. */
async function migrationsCopy(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-migrations-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await cp(MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

interface HistoryRow {
  id: string;
  checksum: string;
  finished_at: Date | null;
  migration_name: string;
  logs: string | null;
  rolled_back_at: Date | null;
  started_at: Date;
  applied_steps_count: number;
}

const history = (url: string) =>
  query<HistoryRow>(url, 'SELECT * FROM _prisma_migrations ORDER BY started_at, migration_name');

describe('applyMigrations', () => {
  it('applies every migration to an empty database, recording each like prisma migrate deploy', async () => {
    const database = await emptyDatabase();
    const onDisk = await readMigrations(MIGRATIONS_DIR);
    const lines: string[] = [];

    const result = await applyMigrations(database.url, { log: (line) => lines.push(line) });

    expect(onDisk.length).toBeGreaterThan(0);
    expect(result.applied).toEqual(onDisk.map((migration) => migration.name));
    expect(lines).toHaveLength(onDisk.length);
    lines.forEach((line, i) => {
      expect(line).toMatch(new RegExp(`^applied ${onDisk[i]?.name} \\(\\d+ ms\\)$`));
    });
    const rows = await history(database.url);
    expect(rows.map((row) => row.migration_name)).toEqual(result.applied);
    for (const row of rows) {
      const file = await readFile(join(MIGRATIONS_DIR, row.migration_name, 'migration.sql'));
      expect(row.id).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(row.checksum).toBe(createHash('sha256').update(file).digest('hex'));
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.finished_at?.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
      expect(row.rolled_back_at).toBeNull();
      expect(row.logs).toBeNull();
      expect(row.applied_steps_count).toBe(1);
    }
  });

  it("creates _prisma_migrations with Prisma's own column types, nullability and defaults", async () => {
    const database = await emptyDatabase();
    await applyMigrations(database.url);

    const columns = await query(
      database.url,
      `SELECT column_name, data_type, character_maximum_length AS length, is_nullable, column_default
         FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    const primaryKey = await query(
      database.url,
      `SELECT conname, pg_get_constraintdef(oid) AS definition FROM pg_constraint
        WHERE conrelid = '_prisma_migrations'::regclass AND contype = 'p'`,
    );

    expect(columns).toEqual([
      col('id', 'character varying', 36, 'NO', null),
      col('checksum', 'character varying', 64, 'NO', null),
      col('finished_at', 'timestamp with time zone', null, 'YES', null),
      col('migration_name', 'character varying', 255, 'NO', null),
      col('logs', 'text', null, 'YES', null),
      col('rolled_back_at', 'timestamp with time zone', null, 'YES', null),
      col('started_at', 'timestamp with time zone', null, 'NO', 'now()'),
      col('applied_steps_count', 'integer', null, 'NO', '0'),
    ]);
    expect(primaryKey).toEqual([
      { conname: '_prisma_migrations_pkey', definition: 'PRIMARY KEY (id)' },
    ]);
  });

  it('applies nothing when the database is up to date', async () => {
    const database = await emptyDatabase();
    await applyMigrations(database.url);
    const before = await history(database.url);
    const lines: string[] = [];

    const result = await applyMigrations(database.url, { log: (line) => lines.push(line) });

    expect(result.applied).toEqual([]);
    expect(lines).toEqual([]);
    expect(await history(database.url)).toEqual(before);
  });

  it('applies only the pending migrations, in name order', async () => {
    const database = await emptyDatabase();
    const dir = await migrationsCopy();
    await applyMigrations(database.url, { migrationsDir: dir });
    await addMigration(dir, '29990102000000_second', 'CREATE TABLE "second" ("id" INTEGER);');
    await addMigration(dir, '29990101000000_first', 'CREATE TABLE "first" ("id" INTEGER);');

    const result = await applyMigrations(database.url, { migrationsDir: dir });

    expect(result.applied).toEqual(['29990101000000_first', '29990102000000_second']);
    expect((await history(database.url)).map((row) => row.migration_name).slice(-2)).toEqual(
      result.applied,
    );
  });

  it('refuses to run when an applied migration file was changed', async () => {
    const database = await emptyDatabase();
    const dir = await migrationsCopy();
    const [first] = await readMigrations(dir);
    await applyMigrations(database.url, { migrationsDir: dir });
    await appendFile(join(dir, `${first?.name}`, 'migration.sql'), '\n-- edited afterwards\n');
    await addMigration(dir, '29990101000000_next', 'CREATE TABLE "next" ("id" INTEGER);');

    await expect(applyMigrations(database.url, { migrationsDir: dir })).rejects.toThrow(
      `an applied migration was modified after being applied: ${first?.name}`,
    );
    const tables = await query(database.url, `SELECT to_regclass('next') AS next`);
    expect(tables).toEqual([{ next: null }]);
  });

  it('accepts an applied migration whose line endings changed (as Prisma does)', async () => {
    const database = await emptyDatabase();
    const dir = await migrationsCopy();
    const [first] = await readMigrations(dir);
    await applyMigrations(database.url, { migrationsDir: dir });
    const file = join(dir, `${first?.name}`, 'migration.sql');
    await writeFile(file, (await readFile(file, 'utf8')).replaceAll('\n', '\r\n'));

    await expect(applyMigrations(database.url, { migrationsDir: dir })).resolves.toEqual({
      applied: [],
    });
  });

  it('refuses to run while a failed migration is recorded and not rolled back', async () => {
    const database = await emptyDatabase();
    await applyMigrations(database.url);
    await query(
      database.url,
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, logs)
       VALUES ('00000000-0000-4000-8000-000000000000', 'x', '29990101000000_broken', 'syntax error')`,
    );

    await expect(applyMigrations(database.url)).rejects.toThrow(
      /failed migrations\.\nThe `29990101000000_broken` migration started at .* failed with the following logs:\nsyntax error/,
    );
  });

  it('rolls a failing migration back, records the attempt, and applies the fixed file later', async () => {
    const database = await emptyDatabase();
    const dir = await migrationsCopy();
    await applyMigrations(database.url, { migrationsDir: dir });
    const name = '29990101000000_broken';
    await addMigration(
      dir,
      name,
      'CREATE TABLE "half" ("id" INTEGER);\nSELECT no_such_function();',
    );

    await expect(applyMigrations(database.url, { migrationsDir: dir })).rejects.toThrow(
      `Migration ${name} failed and was rolled back: function no_such_function() does not exist`,
    );
    expect(await query(database.url, `SELECT to_regclass('half') AS half`)).toEqual([
      { half: null },
    ]);
    const attempt = (await history(database.url)).find((row) => row.migration_name === name);
    expect(attempt).toMatchObject({ finished_at: null, applied_steps_count: 0 });
    expect(attempt?.logs).toContain('no_such_function');
    expect(attempt?.rolled_back_at).toBeInstanceOf(Date);

    await addMigration(dir, name, 'CREATE TABLE "half" ("id" INTEGER);');
    expect(await applyMigrations(database.url, { migrationsDir: dir })).toEqual({
      applied: [name],
    });
  });

  it('lets concurrent runners apply each migration exactly once (advisory lock)', async () => {
    const database = await emptyDatabase();

    const results = await Promise.all([
      applyMigrations(database.url),
      applyMigrations(database.url),
      applyMigrations(database.url),
    ]);

    const onDisk = (await readMigrations(MIGRATIONS_DIR)).map((migration) => migration.name);
    expect(results.flatMap((result) => result.applied).sort()).toEqual(onDisk);
    expect(await history(database.url)).toHaveLength(onDisk.length);
  });
});

describe('audit_log', () => {
  it('is append-only: INSERT works, UPDATE, DELETE and TRUNCATE raise', async () => {
    const database = await emptyDatabase();
    await applyMigrations(database.url);
    await query(
      database.url,
      `INSERT INTO audit_log (actor, verb, kind, name) VALUES ('alice', 'create', 'MediationPolicy', 'p')`,
    );

    for (const statement of [
      `UPDATE audit_log SET actor = 'mallory'`,
      'DELETE FROM audit_log',
      'TRUNCATE audit_log',
    ]) {
      await expect(query(database.url, statement), statement).rejects.toThrow(
        /^audit_log is append-only: (UPDATE|DELETE|TRUNCATE) is not allowed$/,
      );
    }
    expect(await query(database.url, 'SELECT actor FROM audit_log')).toEqual([{ actor: 'alice' }]);
  });
});

async function addMigration(dir: string, name: string, sql: string): Promise<void> {
  await mkdir(join(dir, name), { recursive: true });
  await writeFile(join(dir, name, 'migration.sql'), sql);
}

function col(
  column_name: string,
  data_type: string,
  length: number | null,
  is_nullable: 'YES' | 'NO',
  column_default: string | null,
) {
  return { column_name, data_type, length, is_nullable, column_default };
}
