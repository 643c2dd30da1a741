import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type EmbeddedPostgresHandle,
  postgresScratchDir,
  resolveDatabaseUrl,
  startEmbeddedPostgres,
} from './embedded-postgres.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function scratchDir(): Promise<string> {
  const dir = await postgresScratchDir('toolgate-embedded-');
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function start(dataDir: string, lines: string[] = []): Promise<EmbeddedPostgresHandle> {
  const server = await startEmbeddedPostgres({ dataDir, log: (line) => lines.push(line) });
  cleanups.push(server.stop);
  return server;
}

async function sql(url: string, text: string): Promise<pg.QueryResultRow[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

describe('startEmbeddedPostgres', () => {
  it('initialises a new data dir, then reuses it with its data after a restart', async () => {
    const dataDir = join(await scratchDir(), 'postgres');
    const firstLines: string[] = [];
    const first = await start(dataDir, firstLines);
    expect(first.url).toBe(`postgresql://postgres:postgres@127.0.0.1:${first.port}/toolgate`);
    await sql(first.url, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')");
    expect(await sql(first.url, 'SHOW server_encoding')).toEqual([{ server_encoding: 'UTF8' }]);
    await first.stop();

    const secondLines: string[] = [];
    const second = await start(dataDir, secondLines);

    expect(await sql(second.url, 'SELECT v FROM kept')).toEqual([{ v: 'still here' }]);
    expect(firstLines.some((line) => line.startsWith('initialising'))).toBe(true);
    expect(secondLines.some((line) => line.startsWith('initialising'))).toBe(false);
    await second.stop();
  });

  it('starts over a postmaster.pid left by a crashed run, and refuses a dir that is in use', async () => {
    const dataDir = join(await scratchDir(), 'postgres');
    const server = await start(dataDir);
    await expect(startEmbeddedPostgres({ dataDir })).rejects.toThrow(
      /PostgreSQL is already running on .* \(pid \d+, port \d+\)/,
    );
    await server.stop();
    // As after a container restart: the recorded pid now belongs to another process (this one).
    await writeFile(join(dataDir, 'postmaster.pid'), `${process.pid}\n${dataDir}\n0\n5432\n\n`);

    const lines: string[] = [];
    const restarted = await start(dataDir, lines);

    expect(await sql(restarted.url, 'SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
    expect(lines).toContain(
      `removed stale ${join(dataDir, 'postmaster.pid')} (no postmaster with pid ${process.pid} serves this directory)`,
    );
    await restarted.stop();
  });

  it('refuses a non-empty directory that holds no cluster', async () => {
    const dataDir = join(await scratchDir(), 'not-a-cluster');
    await mkdir(dataDir);
    await writeFile(join(dataDir, 'notes.txt'), 'mine');

    await expect(startEmbeddedPostgres({ dataDir })).rejects.toThrow(
      'is not empty but holds no PostgreSQL cluster',
    );
  });
});

describe('resolveDatabaseUrl', () => {
  it('prefers a configured DATABASE_URL and starts nothing', async () => {
    const resolved = await resolveDatabaseUrl({
      databaseUrl: 'postgresql://elsewhere/toolgate',
      dataDir: '/nonexistent',
    });
    expect(resolved).toMatchObject({ url: 'postgresql://elsewhere/toolgate', embedded: false });
  });

  it('falls back to the embedded cluster under dataDir', async () => {
    const dataDir = join(await scratchDir(), 'postgres');
    const resolved = await resolveDatabaseUrl({ databaseUrl: undefined, dataDir });
    cleanups.push(resolved.stop);

    expect(resolved.embedded).toBe(true);
    expect(await sql(resolved.url, 'SELECT current_database() AS db')).toEqual([
      { db: 'toolgate' },
    ]);
    await resolved.stop();
  });
});

describe('a process that imports embedded-postgres', () => {
  /** Runs `script` as an ES module in a fresh Node process, with this module as `db`. */
  async function runWithModule(script: string) {
    const { spawnSync } = await import('node:child_process');
    const module = new URL('./embedded-postgres.ts', import.meta.url).href;
    return spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const db = await import(${JSON.stringify(module)});\n${script}`,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
  }

  it('keeps the exit code it set (async-exit-hook would turn it into 0)', async () => {
    const child = await runWithModule('process.exitCode = 3;');
    expect(child.stderr).toBe('');
    expect(child.status).toBe(3);
  });

  it('gives up its SIGHUP/SIGINT/SIGTERM listeners to a process that takes over shutdown', async () => {
    const counts = `['SIGHUP', 'SIGINT', 'SIGTERM'].map((s) => process.listenerCount(s)).join(',')`;
    const child = await runWithModule(
      `const before = ${counts};
       const removed = db.takeOverShutdownSignals();
       console.log(JSON.stringify({ before, removed, after: ${counts}, again: db.takeOverShutdownSignals() }));`,
    );
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({
      before: '1,1,1',
      removed: 3,
      after: '0,0,0',
      again: 0,
    });
  });
});
