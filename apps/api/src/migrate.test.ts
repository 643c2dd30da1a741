import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { MIGRATIONS_DIR, readMigrations } from '@toolgate/db';
import { createTestDatabase } from '@toolgate/db/testing';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';

/**
 * `src/migrate.ts` as the Helm chart's init container and pre-upgrade Job run it: a process of its
 * own against an empty database, then again once the schema is current.
 */

const run = promisify(execFile);
const MIGRATE = new URL('./migrate.ts', import.meta.url).pathname;
const cleanups: (() => Promise<void>)[] = [];
afterAll(() => Promise.all(cleanups.map((cleanup) => cleanup())));

/** Runs migrate.ts with only `env` (not the test runner's DATABASE_URL); never throws. */
async function migrate(env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', MIGRATE], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function appliedMigrations(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ migration_name: string }>(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name',
    );
    return rows.map((row) => row.migration_name);
  } finally {
    await client.end();
  }
}

describe('migrate.ts', () => {
  it('applies every migration to an empty database, then finds nothing to do', async () => {
    const database = await createTestDatabase(inject('databaseAdminUrl'), { migrate: false });
    cleanups.push(database.drop);
    const names = (await readMigrations(MIGRATIONS_DIR)).map((migration) => migration.name);

    const first = await migrate({ DATABASE_URL: database.url });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`migrations: ${names.length} applied`);
    expect(await appliedMigrations(database.url)).toEqual(names);

    const second = await migrate({ DATABASE_URL: database.url });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('migrations: the schema is up to date');
  });

  it('exits 1 naming DATABASE_URL when it is not set', async () => {
    const { code, stdout } = await migrate({});
    expect(code).toBe(1);
    expect(stdout).toContain('DATABASE_URL is not set');
  });

  it('exits 1 when the database cannot be reached, without printing the password', async () => {
    const { code, stdout } = await migrate({
      DATABASE_URL: 'postgres://toolgate:s3cret-password@127.0.0.1:1/toolgate',
    });
    expect(code).toBe(1);
    expect(stdout).toContain('migrations failed');
    expect(stdout).not.toContain('s3cret-password');
  });
});
