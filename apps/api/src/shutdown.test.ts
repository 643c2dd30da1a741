import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { until } from '@toolgate/core/testing';
import { findFreePort, postgresScratchDir } from '@toolgate/db';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi } from './testing/test-api.ts';

/**
 * The API as `pnpm start` runs it (main.ts, embedded PostgreSQL under DATA_DIR), stopped with
 * SIGTERM while a request is in flight. The request is held in the database by a lock this test
 * takes on `resources`, so it is provably still running when the signal arrives.
 */

const MAIN = new URL('./main.ts', import.meta.url).pathname;
const REPO_ROOT = new URL('../../../', import.meta.url).pathname;
const LIST_GATEWAYS = '/apis/toolgate.dev/v1/gateways';

interface RunningApi {
  child: ChildProcess;
  url: string;
  databaseUrl: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

let dataDir: string;
let operatorToken: string | undefined;

beforeAll(async () => {
  dataDir = await postgresScratchDir('toolgate-api-shutdown-');
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function startApi(graceMs: number): Promise<RunningApi> {
  const port = await findFreePort();
  const { DATABASE_URL: _external, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    cwd: REPO_ROOT,
    env: {
      ...env,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE_MS: String(graceMs),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const url = `http://127.0.0.1:${port}`;
  await until(async () => {
    if (child.exitCode !== null) throw new Error(`the API exited during start-up:\n${output}`);
    const ready = await fetch(`${url}/readyz`).catch(() => undefined);
    return ready?.status === 200;
  }, 120_000);
  operatorToken ??= /operator identity "admin" was created[^\n]*\n\n\s+(\S+)/.exec(output)?.[1];
  const postgresPort = /PostgreSQL listening on 127\.0\.0\.1:(\d+)/.exec(output)?.[1];
  if (!postgresPort) throw new Error(`no PostgreSQL port in the API's output:\n${output}`);
  return {
    child,
    url,
    databaseUrl: `postgresql://postgres:postgres@127.0.0.1:${postgresPort}/toolgate`,
    output: () => output,
    exited,
  };
}

/** Holds an exclusive lock on `resources` until `release()`: every read of it waits. */
async function lockResources(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => {});
  await client.connect();
  await client.query('BEGIN');
  await client.query('LOCK TABLE resources IN ACCESS EXCLUSIVE MODE');
  return {
    release: () => client.query('COMMIT').then(() => client.end()),
    /** True once a query of another session is waiting for the lock. */
    waitedOn: async () => {
      const { rows } = await client.query(
        `SELECT count(*)::int AS waiting FROM pg_locks WHERE NOT granted AND relation = 'resources'::regclass`,
      );
      return (rows[0] as { waiting: number }).waiting > 0;
    },
    end: () => client.end().catch(() => undefined),
  };
}

function listGateways(api: RunningApi) {
  return fetch(`${api.url}${LIST_GATEWAYS}`, {
    headers: { authorization: `Bearer ${operatorToken}` },
  });
}

const postmasterPid = () => join(dataDir, 'postgres', 'postmaster.pid');

describe('the API on SIGTERM', () => {
  it('lets the request in flight finish, then closes the database, then stops PostgreSQL, and exits 0', async () => {
    const api = await startApi(10_000);
    expect(operatorToken).toBeTruthy();
    const lock = await lockResources(api.databaseUrl);
    const inFlight = listGateways(api);
    await until(lock.waitedOn, 10_000);

    api.child.kill('SIGTERM');
    await until(async () => api.output().includes('SIGTERM: shutting down'), 10_000);
    // Not accepting any more, while the request above is still waiting for the database.
    await expect(fetch(`${api.url}/healthz`)).rejects.toThrow();
    expect(existsSync(postmasterPid())).toBe(true);
    await lock.release();

    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ kind: 'GatewayList' });
    expect(await api.exited, api.output()).toEqual({ code: 0, signal: null });
    expect(existsSync(postmasterPid())).toBe(false);
    expect(api.output()).not.toMatch(/"level":(50|60)/);
    expect(api.output()).not.toContain('still in flight');
  });

  it('cuts a request still in flight after the grace period, stops PostgreSQL anyway and exits 1', async () => {
    const api = await startApi(500);
    const lock = await lockResources(api.databaseUrl);
    try {
      const inFlight = listGateways(api).then(
        (answer) => answer.status,
        (error: Error) => error.name,
      );
      await until(lock.waitedOn, 10_000);

      api.child.kill('SIGTERM');
      expect(await inFlight).toBe('TypeError');
      expect(await api.exited).toEqual({ code: 1, signal: null });
      expect(api.output()).toContain('requests still in flight after 500 ms');
      expect(existsSync(postmasterPid())).toBe(false);
    } finally {
      await lock.end();
    }
  });

  it('does not wait for a connection that never sent a request (Node does not count it idle)', async () => {
    const api = await startTestApi();
    const silent = connect(Number(new URL(api.url).port), '127.0.0.1');
    await once(silent, 'connect');
    const closed = await Promise.race([
      api.close().then(() => 'closed'),
      sleep(10_000).then(() => 'still open after 10 s'),
    ]);
    silent.destroy();
    expect(closed).toBe('closed');
  });
});
