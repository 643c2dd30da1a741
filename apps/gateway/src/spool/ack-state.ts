import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './durable-fs.ts';

export const ACK_STATE_FILE = 'ack-state.json';

/**
 * How far the API has acknowledged this spool. One number suffices because acks arrive in
 * order: every record with `seq <= ackedThrough` is shipped and may be deleted.
 */
export interface AckState {
  ackedThrough: number;
}

/**
 * Reads the ack state, or null when there is none yet (or it cannot be read: then everything
 * still on disk is shipped again — duplicates the idempotent API absorbs, never a loss).
 */
export async function readAckState(
  dir: string,
  onUnreadable: (reason: string) => void,
): Promise<AckState | null> {
  const path = join(dir, ACK_STATE_FILE);
  // A crash between writing the temporary file and renaming it leaves it behind; it was never
  // the ack state (the rename is the commit point).
  await rm(`${path}.tmp`, { force: true });
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let parsed: Partial<AckState>;
  try {
    parsed = JSON.parse(text) as Partial<AckState>;
  } catch (error) {
    onUnreadable((error as Error).message);
    return null;
  }
  const { ackedThrough } = parsed;
  if (typeof ackedThrough !== 'number' || !Number.isSafeInteger(ackedThrough) || ackedThrough < 0) {
    onUnreadable(`ackedThrough is ${JSON.stringify(ackedThrough)}`);
    return null;
  }
  return { ackedThrough };
}

/** Durable when it resolves (temporary file, fsync, rename, directory fsync). */
export async function writeAckState(dir: string, state: AckState): Promise<void> {
  await writeFileAtomic(join(dir, ACK_STATE_FILE), `${JSON.stringify(state)}\n`);
}
