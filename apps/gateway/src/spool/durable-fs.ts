import { mkdir, open, rename } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * Makes directory entries durable: on Linux a created, renamed or deleted file name is only
 * guaranteed to survive a power loss once its directory has been fsynced. Windows cannot open a
 * directory for syncing (and journals names itself), so there it is a no-op.
 */
export async function fsyncDir(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `path` so that after a crash it holds either the old or the new content, never a
 * mix: write a temporary file, fsync it, rename it over `path`, fsync the directory.
 */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  const tmp = `${path}.tmp`;
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, path);
  await fsyncDir(dirname(path));
}

/** Creates `dir` (and missing parents) and makes each new name durable in its parent. */
export async function mkdirDurable(dir: string): Promise<void> {
  const firstCreated = await mkdir(dir, { recursive: true });
  if (firstCreated === undefined) return;
  const target = resolve(dir);
  let created = resolve(firstCreated);
  for (;;) {
    await fsyncDir(dirname(created));
    if (created === target) return;
    const [next] = relative(created, target).split(sep);
    created = join(created, next as string);
  }
}
