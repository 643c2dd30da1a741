import { randomUUID } from 'node:crypto';
import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SpoolLockedError } from './errors.ts';

export const LOCK_FILE = 'spool.lock';

/** Who holds the lock. `startTime` tells a live holder from a later process that got its pid. */
interface LockOwner {
  pid: number;
  /** Linux `/proc/<pid>/stat` start time (clock ticks since boot); null elsewhere. */
  startTime: string | null;
  hostname: string;
  acquiredAt: string;
  /** Makes every lock file's content unique, so a takeover can check it removed the right one. */
  token: string;
}

export interface SpoolLock {
  readonly path: string;
  release(): Promise<void>;
}

/**
 * Directories this process has locked. Kept on `globalThis` so that two copies of this module
 * (test isolation, bundling) still see each other.
 */
const registryKey = Symbol.for('toolgate.spool.heldLocks');
const registry = globalThis as unknown as Record<symbol, Set<string> | undefined>;
registry[registryKey] ??= new Set<string>();
const held = registry[registryKey];

/** An empty lock file younger than this may be a holder between `open` and `write`. */
const FRESH_EMPTY_LOCK_MS = 2_000;
const MAX_ATTEMPTS = 50;

/**
 * Makes this process the only one using `dir`: creates `spool.lock` with O_EXCL and our pid. A
 * lock whose process is gone (or whose pid now belongs to a different process) is stale and is
 * taken over; a live holder makes this throw `SpoolLockedError`.
 *
 * Limits: liveness is judged by pid, so the lock protects one host (one pid namespace); it is not
 * a distributed lock, and two containers must not share a spool directory.
 */
export async function acquireLock(dir: string): Promise<SpoolLock> {
  const path = resolve(join(dir, LOCK_FILE));
  if (held.has(path)) {
    throw new SpoolLockedError(dir, process.pid, 'this process already has it open');
  }
  held.add(path);
  try {
    const owner: LockOwner = {
      pid: process.pid,
      startTime: await processStartTime(process.pid),
      hostname: hostname(),
      acquiredAt: new Date().toISOString(),
      token: randomUUID(),
    };
    const content = JSON.stringify(owner);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (await createExclusive(path, content)) {
        return { path, release: () => release(path, content) };
      }
      const existing = await readIfExists(path);
      if (existing === null) continue;
      const holder = parseOwner(existing);
      if (holder === null) {
        if (Date.now() - (await mtimeMs(path)) < FRESH_EMPTY_LOCK_MS) {
          await sleep(50);
          continue;
        }
      } else if (await isAlive(holder, owner)) {
        throw new SpoolLockedError(dir, holder.pid);
      }
      await removeStale(path, existing);
    }
    throw new SpoolLockedError(dir, null, 'could not take over its stale lock');
  } catch (error) {
    held.delete(path);
    throw error;
  }
}

async function isAlive(holder: LockOwner, self: LockOwner): Promise<boolean> {
  if (holder.pid === self.pid) {
    // Not another Spool of ours (the registry said so), unless in another worker thread — which
    // shares our start time. A different start time is an earlier process that had our pid:
    // common in containers, where the gateway is pid 1 on every start.
    return holder.startTime !== null && holder.startTime === self.startTime;
  }
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user — alive.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  if (holder.startTime === null) return true;
  const current = await processStartTime(holder.pid);
  return current === null || current === holder.startTime;
}

/**
 * Removes a stale lock without racing another process doing the same: rename it aside, check
 * that what was moved is the stale content (not a lock someone created meanwhile), and put it
 * back if not — with `link`, which refuses to overwrite. (Only a third process creating a lock
 * in the instant between the two could still leave the displaced holder without its file.)
 */
async function removeStale(path: string, staleContent: string): Promise<void> {
  const aside = `${path}.stale-${randomUUID()}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    if ((await readIfExists(aside)) !== staleContent) {
      await link(aside, path).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
    }
  } finally {
    await unlink(aside);
  }
}

async function release(path: string, content: string): Promise<void> {
  try {
    if ((await readIfExists(path)) === content) await unlink(path);
  } finally {
    held.delete(path);
  }
}

async function createExclusive(path: string, content: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    // Not fsynced: after a crash the lock is stale anyway, and a lost one is no loss.
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
  return true;
}

function parseOwner(content: string): LockOwner | null {
  try {
    const owner = JSON.parse(content) as Partial<LockOwner>;
    if (typeof owner.pid !== 'number' || !Number.isSafeInteger(owner.pid) || owner.pid <= 0) {
      return null;
    }
    return {
      pid: owner.pid,
      startTime: typeof owner.startTime === 'string' ? owner.startTime : null,
      hostname: String(owner.hostname),
      acquiredAt: String(owner.acquiredAt),
      token: String(owner.token),
    };
  } catch {
    return null;
  }
}

/** Field 22 of `/proc/<pid>/stat`; fields are counted after the `(comm)`, which may hold spaces. */
async function processStartTime(pid: number): Promise<string | null> {
  if (process.platform !== 'linux') return null;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

async function mtimeMs(path: string): Promise<number> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return 0;
  }
}
