import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { readAckState } from './ack-state.ts';
import { fsyncDir } from './durable-fs.ts';
import { SpoolCorruptError } from './errors.ts';
import {
  createSegment,
  isSegmentFileName,
  loadSegment,
  type Segment,
  segmentFileName,
} from './segment.ts';
import type { SpoolLogger } from './spool-logger.ts';

/** What `Spool.open` found on disk. */
export interface SpoolRecovery {
  /** Records on disk after recovery, acknowledged or not. */
  records: number;
  /** Of those, not yet acknowledged: they will be shipped. */
  unacked: number;
  /** Bytes of torn tail cut off the newest segment (appends that never resolved). */
  tornBytes: number;
  /** Fully acknowledged segments a crash had left behind, now deleted. */
  removedSegments: number;
}

export interface RecoveredState {
  /** Oldest first, at least one; the last is open for appending. */
  segments: Segment[];
  ackedThrough: number;
  recovery: SpoolRecovery;
}

/**
 * Rebuilds the spool's state from its directory (the caller holds the lock): validates every
 * segment, cuts a torn tail off the newest, finishes a compaction a crash interrupted, and
 * reconciles the ack position with the records that exist.
 */
export async function recover(
  dir: string,
  log: SpoolLogger,
  now: () => number,
): Promise<RecoveredState> {
  const ackState = await readAckState(dir, (reason) =>
    log.warn({ dir, reason }, 'spool ack state unreadable; unacknowledged data is re-shipped'),
  );
  let ackedThrough = ackState?.ackedThrough ?? 0;

  const names = (await readdir(dir)).filter(isSegmentFileName).sort();
  const segments: Segment[] = [];
  let tornBytes = 0;
  for (const [index, name] of names.entries()) {
    const loaded = await loadSegment(join(dir, name), index === names.length - 1);
    tornBytes += loaded.tornBytes;
    if (loaded.tornBytes > 0) {
      log.warn(
        { file: name, tornBytes: loaded.tornBytes, reason: loaded.tornReason },
        'spool: cut torn tail left by a crash (appends that never completed)',
      );
    }
    if (loaded.segment === null) {
      await unlink(join(dir, name));
      await fsyncDir(dir);
    } else {
      segments.push(loaded.segment);
    }
  }
  checkContinuity(segments);

  const oldest = segments[0];
  if (oldest !== undefined) ackedThrough = Math.max(ackedThrough, oldest.firstSeq - 1);
  const newest = segments.at(-1);
  if (newest !== undefined && ackedThrough > newest.lastSeq) {
    log.warn(
      { ackedThrough, lastSeq: newest.lastSeq },
      'spool ack state is ahead of the records on disk; clamping it',
    );
    ackedThrough = newest.lastSeq;
  }

  // Deleting segments is not fsync-critical at runtime because this repeats it.
  const removable = segments.filter((s, i) => i < segments.length - 1 && s.lastSeq <= ackedThrough);
  for (const segment of removable) await unlink(segment.path);
  if (removable.length > 0) await fsyncDir(dir);
  const kept = segments.slice(removable.length);

  if (kept.length === 0) {
    if (ackedThrough > 0) {
      log.warn({ dir, ackedThrough }, 'spool has an ack state but no segment: chain restarts');
    }
    kept.push(
      await createSegment(dir, { firstSeq: ackedThrough + 1, prevHash: null, createdAt: now() }),
    );
  }
  const last = kept.at(-1) as Segment;
  const recovery: SpoolRecovery = {
    records: last.lastSeq - (kept[0] as Segment).firstSeq + 1,
    unacked: last.lastSeq - ackedThrough,
    tornBytes,
    removedSegments: removable.length,
  };
  log.info({ dir, ...recovery, chainHead: last.chainHead }, 'spool opened');
  return { segments: kept, ackedThrough, recovery };
}

/** Consecutive seqs and an unbroken chain across segments; only a deleted file breaks them. */
function checkContinuity(segments: Segment[]): void {
  for (let i = 1; i < segments.length; i++) {
    const before = segments[i - 1] as Segment;
    const after = segments[i] as Segment;
    if (after.firstSeq !== before.lastSeq + 1) {
      throw new SpoolCorruptError(
        after.path,
        0,
        `starts at seq ${after.firstSeq} but ${segmentFileName(before.firstSeq)} ends at ${before.lastSeq}`,
      );
    }
    if (after.header.prevHash !== before.chainHead) {
      throw new SpoolCorruptError(after.path, 0, 'its prevHash is not the previous segment’s head');
    }
  }
}
