/**
 * The gateway's durable receipt spool: every receipt is written here before the agent gets its
 * response, and stays until the API has acknowledged it.
 *
 * Durability guarantee (Linux semantics; "durable" = survives `kill -9` and power loss on a disk
 * that honours fsync):
 *
 * - **Records**: `append` resolves only after an fsync (`fdatasync`) of the segment file that
 *   covers the record. With `fsync: 'always'` each record gets its own; with `'batch'` (group
 *   commit) every append queued while the previous fsync ran — or in the same event-loop turn —
 *   shares the next one. Either way a resolved append is durable; a crash can only lose appends
 *   that had not resolved, and those leave at most a torn tail that `open` cuts off.
 *   `'interval'` trades the power-loss guarantee for latency: an append resolves once written
 *   to the file (in the OS page cache, so it survives `kill -9` of the process), and one fsync
 *   per `fsyncIntervalMs` makes it durable; a power loss or kernel crash can lose the records
 *   of the last interval. `pending` hands out only fsynced records in every mode.
 * - **Acks**: `ackThrough` resolves after the new ack position is in `ack-state.json`, replaced
 *   atomically (write `.tmp`, fsync, rename, fsync the directory). After a crash, records up to
 *   the last resolved ack are never handed out again; an ack that had not resolved may repeat a
 *   batch (the API is idempotent on receipt id).
 * - **Directory entries**: a new segment's header is fsynced, then the directory, before any
 *   record goes in. Deletions are fsynced too but need not be: segments wholly at or below the
 *   durable ack position are deleted again by `open`.
 * - **Chain head**: the newest segment is never deleted, and each segment's header carries the
 *   chain head at its creation, so `chainHead()` survives restarts and full compaction.
 * - **Bounded**: an append that would take unacknowledged bytes above `maxBytes` is refused
 *   (`'reject'`, default: `SpoolFullError`, nothing lost) or counted in `dropped` (`'drop'`).
 *   Disk use stays below `maxBytes` plus about two segments of acknowledged records.
 *
 * `pending` only ever returns durable records, so nothing can be shipped (and acknowledged)
 * that a crash could still take back — the API's copy of the chain never forks from ours.
 */
import { unlink } from 'node:fs/promises';
import { setImmediate as yieldToIo } from 'node:timers/promises';
import { writeAckState } from './ack-state.ts';
import { DiskSpaceWatch } from './disk-space.ts';
import { fsyncDir, mkdirDurable } from './durable-fs.ts';
import { SpoolClosedError, SpoolCorruptError, SpoolFailedError, SpoolFullError } from './errors.ts';
import { acquireLock, type SpoolLock } from './lock-file.ts';
import {
  decodeRecord,
  encodeRecord,
  MAX_PAYLOAD_BYTES,
  RECORD_HEADER_BYTES,
} from './record-codec.ts';
import { recover, type SpoolRecovery } from './recovery.ts';
import { createSegment, type Segment, writeAllSync } from './segment.ts';
import { type SpoolLogger, silentLogger } from './spool-logger.ts';

export {
  SpoolClosedError,
  SpoolCorruptError,
  SpoolFailedError,
  SpoolFullError,
  SpoolLockedError,
} from './errors.ts';
export type { SpoolRecovery } from './recovery.ts';
export type { SpoolLogger } from './spool-logger.ts';

/** What happens when the spool is full: refuse the request (loses nothing) or count a drop. */
export type SpoolFullPolicy = 'reject' | 'drop';

/**
 * `'always'`: one fsync per record. `'batch'`: concurrent appends share one (group commit).
 * `'interval'`: an append resolves once written (it survives a crash of the process, not of the
 * machine); fsyncs run every `fsyncIntervalMs`. Records are never handed to `pending` (shipped)
 * before their fsync, whatever the mode.
 */
export type SpoolFsyncMode = 'always' | 'batch' | 'interval';

export interface SpoolOptions {
  dir: string;
  /** Upper bound on bytes of unacknowledged records (framing included). */
  maxBytes: number;
  /** Default `'reject'`: SPEC §4 wants the default to lose nothing. */
  fullPolicy?: SpoolFullPolicy;
  /** Default `'batch'`: as durable as `'always'`, far cheaper under concurrency. */
  fsync?: SpoolFsyncMode;
  /** With `fsync: 'interval'`: the longest a written record waits for its fsync. Default 10. */
  fsyncIntervalMs?: number;
  /**
   * The disk counts as full (like the spool at `maxBytes`: `fullPolicy` applies) while its
   * file system has fewer free bytes than this. Default 0: not watched.
   */
  minFreeBytes?: number;
  /** Free bytes of the spool's file system (tests inject a fake disk); default `statfs`. */
  freeBytes?: (dir: string) => Promise<number>;
  /** A segment is closed and a new one started past this size. Default 8 MiB. */
  segmentBytes?: number;
  log?: SpoolLogger;
  /** Clock for `appendedAt`/`oldestAgeMs`; injectable for tests. */
  now?: () => number;
}

/** Anything the spool stores must carry its chain hash. */
export interface ChainedReceipt {
  readonly hash: string;
}

export interface PendingRecord<T> {
  seq: number;
  receipt: T;
}

export interface SpoolStats {
  /** Unacknowledged records (accepted appends not yet acknowledged by the API). */
  depth: number;
  /** Their bytes on disk — what `maxBytes` bounds. */
  bytes: number;
  /** Receipts not stored because the spool was full (`fullPolicy: 'drop'`), since open. */
  dropped: number;
  segments: number;
  /** Age of the oldest unacknowledged record; 0 when there is none. */
  oldestAgeMs: number;
  /** Record-data fsyncs since open; `appends / fsyncs` shows how well group commit works. */
  fsyncs: number;
  /**
   * At its bound: an append was refused or dropped and no acknowledgement has freed room since,
   * or the unacknowledged bytes reach `maxBytes`.
   */
  full: boolean;
  /** The file system has fewer free bytes than `minFreeBytes` (part of `full`). */
  diskFull: boolean;
}

const DEFAULT_SEGMENT_BYTES = 8 * 1024 * 1024;

interface QueuedAppend {
  seq: number;
  /** The framed record, in pieces written one after the other; `size` bytes in all. */
  pieces: Buffer[];
  size: number;
  appendedAt: number;
  hash: string;
  resolve(): void;
  reject(error: unknown): void;
}

export class Spool<T extends ChainedReceipt = ChainedReceipt> {
  private readonly fullPolicy: SpoolFullPolicy;
  private readonly fsyncMode: SpoolFsyncMode;
  private readonly fsyncIntervalMs: number;
  /** Highest seq written to its segment file (= `durableSeq` except in `'interval'` mode). */
  private writtenSeq: number;
  private syncTimer: NodeJS.Timeout | undefined;
  private disk: DiskSpaceWatch | undefined;
  private readonly segmentBytes: number;
  private readonly log: SpoolLogger;
  private readonly now: () => number;

  private nextSeq: number;
  /** Highest seq covered by a completed fsync. */
  private durableSeq: number;
  private ackedThrough: number;
  private head: string | null;
  private unackedBytes: number;
  private dropped = 0;
  private fsyncs = 0;
  /** Set at the first refused or dropped append, cleared by the next ack: logs once per episode. */
  private full = false;

  private readonly queue: QueuedAppend[] = [];
  private flushing = false;
  private flushDone: Promise<void> = Promise.resolve();
  /** `pending`, `ackThrough` and handle closing run one at a time, in call order. */
  private controlTail: Promise<unknown> = Promise.resolve();
  private failure: SpoolFailedError | null = null;
  private closed = false;

  private constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
    options: SpoolOptions,
    /** Oldest first; the last is the one being appended to and is never deleted. */
    private readonly segments: Segment[],
    ackedThrough: number,
    private readonly lock: SpoolLock,
    readonly recovery: SpoolRecovery,
  ) {
    this.fullPolicy = options.fullPolicy ?? 'reject';
    this.fsyncMode = options.fsync ?? 'batch';
    this.fsyncIntervalMs = options.fsyncIntervalMs ?? 10;
    this.segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    this.log = options.log ?? silentLogger;
    this.now = options.now ?? Date.now;
    const active = this.active;
    this.durableSeq = active.lastSeq;
    this.writtenSeq = active.lastSeq;
    this.nextSeq = active.lastSeq + 1;
    this.ackedThrough = ackedThrough;
    this.head = active.chainHead;
    this.unackedBytes = this.bytesBetween(ackedThrough + 1, active.lastSeq);
  }

  /**
   * Takes the directory's lock, then recovers: validates every segment, cuts a torn tail off the
   * newest, finishes an interrupted compaction, and restores the ack position and chain head.
   */
  static async open<T extends ChainedReceipt = ChainedReceipt>(
    options: SpoolOptions,
  ): Promise<Spool<T>> {
    const { dir, maxBytes } = options;
    if (!(maxBytes > 0)) throw new RangeError(`maxBytes must be positive, got ${maxBytes}`);
    if (options.segmentBytes !== undefined && !(options.segmentBytes >= 4096)) {
      throw new RangeError(`segmentBytes must be at least 4096, got ${options.segmentBytes}`);
    }
    const log = options.log ?? silentLogger;
    await mkdirDurable(dir);
    const lock = await acquireLock(dir);
    try {
      const { segments, ackedThrough, recovery } = await recover(dir, log, options.now ?? Date.now);
      const spool = new Spool<T>(dir, maxBytes, options, segments, ackedThrough, lock, recovery);
      await spool.watchDisk(options);
      return spool;
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /** The `hash` of the last accepted receipt (null for a brand-new spool). */
  chainHead(): string | null {
    return this.head;
  }

  /**
   * Stores a receipt; resolves once it is durable (see the guarantee above). Appends are
   * written in call order, and the chain head moves synchronously at the call, so
   * `spool.append(chainReceipt(body, spool.chainHead()))` chains correctly under concurrency.
   * A receipt refused or dropped because the spool is full does not move the head.
   */
  async append(receipt: T): Promise<boolean> {
    const hash = receipt.hash;
    if (typeof hash !== 'string') throw new TypeError('a spooled receipt needs a string `hash`');
    return this.appendEncoded(Buffer.from(JSON.stringify(receipt), 'utf8'), hash);
  }

  /**
   * `append` for a caller that serialized the record itself (the gateway's hot path lays out
   * receipts so the shipper can splice them without parsing). `payload` must be the UTF-8 JSON
   * of an object whose `hash` member is `hash` — recovery reads the chain head from it — whole
   * or in pieces that are written one after the other (never joined in memory). Resolves true
   * once the record is written, false when a full spool dropped it (`SPOOL_FULL=drop`).
   */
  async appendEncoded(payload: Buffer | ReadonlyArray<Buffer>, hash: string): Promise<boolean> {
    if (this.closed) throw new SpoolClosedError();
    if (this.failure !== null) throw this.failure;
    const parts = Buffer.isBuffer(payload) ? [payload] : payload;
    const payloadBytes = parts.reduce((sum, piece) => sum + piece.length, 0);
    if (payloadBytes > MAX_PAYLOAD_BYTES) {
      throw new RangeError(`receipt of ${payloadBytes} bytes exceeds ${MAX_PAYLOAD_BYTES}`);
    }
    const size = RECORD_HEADER_BYTES + payloadBytes;
    const diskFull = this.diskLow;
    if (this.unackedBytes + size > this.maxBytes || diskFull) {
      const why = diskFull ? this.diskDetail() : undefined;
      if (!this.full) {
        this.full = true;
        const until = diskFull ? 'the disk has room' : 'receipts are shipped';
        this.log.warn(
          {
            dir: this.dir,
            bytes: this.unackedBytes,
            maxBytes: this.maxBytes,
            policy: this.fullPolicy,
            ...(why ? { disk: why } : {}),
          },
          this.fullPolicy === 'reject'
            ? `receipt spool full: refusing requests until ${until}`
            : `receipt spool full: dropping receipts until ${until}`,
        );
      }
      if (this.fullPolicy === 'reject') {
        throw new SpoolFullError(this.unackedBytes, this.maxBytes, why);
      }
      this.dropped++;
      return false;
    }
    const seq = this.nextSeq++;
    const appendedAt = this.now();
    this.head = hash;
    this.unackedBytes += size;
    const pieces = encodeRecord(seq, appendedAt, parts);
    if (this.fsyncMode === 'interval' && !this.flushing && this.activeTakes(size)) {
      // Nothing queued or being written, and no new segment needed: written in this step, as
      // `drainQueue` would write a batch of one (the same bytes, place and fsync schedule),
      // without its queue entry and chain of promises on the way to the agent's answer.
      try {
        this.writeNow(pieces, size, appendedAt, hash);
      } catch (error) {
        this.failure = new SpoolFailedError(error);
        this.log.error({ err: error, dir: this.dir }, 'spool write failed; appends now refused');
        throw this.failure;
      }
      this.writtenSeq = seq;
      this.scheduleSync();
      return true;
    }
    await new Promise<void>((resolve, reject) => {
      this.queue.push({ seq, pieces, size, appendedAt, hash, resolve, reject });
      this.scheduleFlush();
    });
    return true;
  }

  /** The oldest unacknowledged durable records, in append order, at most `limit`. */
  async pending(limit: number): Promise<Array<PendingRecord<T>>> {
    const raw = await this.pendingEncoded(limit);
    return raw.map(({ seq, payload }) => ({
      seq,
      receipt: JSON.parse(payload.toString('utf8')) as T,
    }));
  }

  /** `pending` without parsing: each record's payload bytes as appended. */
  pendingEncoded(limit: number): Promise<Array<{ seq: number; payload: Buffer }>> {
    if (this.closed) return Promise.reject(new SpoolClosedError());
    return this.control(async () => {
      const out: Array<{ seq: number; payload: Buffer }> = [];
      const last = Math.min(this.durableSeq, this.ackedThrough + Math.max(0, Math.floor(limit)));
      let seq = this.ackedThrough + 1;
      for (const segment of this.segments) {
        if (seq > last) break;
        if (segment.lastSeq < seq) continue;
        const to = Math.min(last, segment.lastSeq);
        const { start, end } = segment.byteRange(seq, to);
        const bytes = await segment.read(start, end);
        let offset = 0;
        for (; seq <= to; seq++) {
          const record = decodeRecord(bytes, offset);
          if ('invalid' in record || record.seq !== seq) {
            const reason = 'invalid' in record ? record.invalid : `found seq ${record.seq}`;
            throw new SpoolCorruptError(
              segment.path,
              start + offset,
              `reading seq ${seq}: ${reason}`,
            );
          }
          out.push({ seq, payload: record.payload });
          offset += record.size;
        }
      }
      return out;
    });
  }

  /**
   * Acknowledges every record up to and including `seq` (acks arrive in order, so a position is
   * all the state there is). Resolves once that is durable; then deletes segments whose records
   * are all acknowledged. `seq` beyond what `pending` could have returned is a caller bug.
   */
  ackThrough(seq: number): Promise<void> {
    if (this.closed) return Promise.reject(new SpoolClosedError());
    return this.control(async () => {
      if (seq <= this.ackedThrough) return;
      if (!Number.isSafeInteger(seq) || seq > this.durableSeq) {
        throw new RangeError(
          `cannot acknowledge seq ${seq}: only up to ${this.durableSeq} shipped`,
        );
      }
      await writeAckState(this.dir, { ackedThrough: seq });
      this.unackedBytes -= this.bytesBetween(this.ackedThrough + 1, seq);
      this.ackedThrough = seq;
      this.roomAgain();
      await this.compact();
    });
  }

  /**
   * True when, with `fullPolicy: 'reject'`, the spool is at its bound: callers check before doing
   * work whose receipt would then be refused (the gateway asks before calling the provider).
   */
  atCapacity(): boolean {
    return this.fullPolicy === 'reject' && (this.unackedBytes >= this.maxBytes || this.diskLow);
  }

  stats(): SpoolStats {
    return {
      depth: this.nextSeq - 1 - this.ackedThrough,
      bytes: this.unackedBytes,
      dropped: this.dropped,
      segments: this.segments.length,
      oldestAgeMs: this.oldestAgeMs(),
      fsyncs: this.fsyncs,
      full: this.full || this.unackedBytes >= this.maxBytes || this.diskLow,
      diskFull: this.diskLow,
    };
  }

  /** Waits for queued appends to become durable, then releases the files and the lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      while (this.flushing) await this.flushDone;
      this.disk?.stop();
      clearTimeout(this.syncTimer);
      await this.syncWritten();
      await this.control(async () => {
        for (const segment of this.segments) await segment.closeHandle();
      });
    } finally {
      await this.lock.release();
    }
  }

  /** Clears the full state (logged once) when neither the bound nor the disk holds it. */
  private roomAgain(): void {
    if (!this.full || this.unackedBytes >= this.maxBytes || this.diskLow) return;
    this.full = false;
    this.log.info(
      { dir: this.dir, bytes: this.unackedBytes, dropped: this.dropped },
      'receipt spool has room again',
    );
  }

  private async watchDisk(options: SpoolOptions): Promise<void> {
    if (!options.minFreeBytes) return;
    this.disk = new DiskSpaceWatch(this.dir, options.minFreeBytes, {
      ...(options.freeBytes ? { freeBytes: options.freeBytes } : {}),
      onChange: (low) => {
        if (!low) this.roomAgain();
      },
    });
    await this.disk.start();
  }

  private diskDetail(): string {
    const free = this.disk?.freeBytes ?? 0;
    return `${free} bytes free on the spool's disk, below the ${this.disk?.minFreeBytes} kept free`;
  }

  /** The disk is below `minFreeBytes` (never, when it is not watched). */
  private get diskLow(): boolean {
    return this.disk?.low ?? false;
  }

  private get active(): Segment {
    return this.segments.at(-1) as Segment;
  }

  private control<R>(task: () => Promise<R>): Promise<R> {
    const run = this.controlTail.then(task, task);
    this.controlTail = run.catch(() => {});
    return run;
  }

  private scheduleFlush(): void {
    if (this.flushing) return;
    this.flushing = true;
    this.flushDone = this.drainQueue();
  }

  /**
   * Writes queued appends until the queue is empty. In `'batch'` mode it first lets the current
   * event-loop turn finish, so appends made together share the fsync; while an fsync runs, new
   * appends queue up and form the next batch.
   */
  private async drainQueue(): Promise<void> {
    try {
      if (this.fsyncMode === 'batch') await yieldToIo();
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.fsyncMode === 'always' ? 1 : this.queue.length);
        try {
          await this.writeBatch(batch);
        } catch (error) {
          this.failure = new SpoolFailedError(error);
          this.log.error({ err: error, dir: this.dir }, 'spool write failed; appends now refused');
          for (const item of [...batch, ...this.queue.splice(0)]) item.reject(this.failure);
          return;
        }
        this.writtenSeq = (batch.at(-1) as QueuedAppend).seq;
        if (this.fsyncMode === 'interval') this.scheduleSync();
        else this.durableSeq = this.writtenSeq;
        for (const item of batch) item.resolve();
      }
    } finally {
      // Same synchronous step as the empty-queue check: an append cannot slip in between.
      this.flushing = false;
    }
  }

  /** Writes and fsyncs a batch, starting a new segment whenever the current one is full. */
  private async writeBatch(batch: QueuedAppend[]): Promise<void> {
    let chunk: QueuedAppend[] = [];
    let chunkBytes = 0;
    for (const item of batch) {
      const active = this.active;
      const occupied = active.count + chunk.length > 0;
      if (occupied && active.size + chunkBytes + item.size > this.segmentBytes) {
        await this.writeChunk(chunk);
        chunk = [];
        chunkBytes = 0;
        await this.rotate();
      }
      chunk.push(item);
      chunkBytes += item.size;
    }
    await this.writeChunk(chunk);
  }

  /** Whether the active segment takes `size` more bytes now (else `writeBatch` rotates first). */
  private activeTakes(size: number): boolean {
    const active = this.active;
    return (
      active.handle !== null && (active.count === 0 || active.size + size <= this.segmentBytes)
    );
  }

  /** One record into the active segment, synchronously (`'interval'` mode's fast path). */
  private writeNow(pieces: Buffer[], size: number, appendedAt: number, hash: string): void {
    const active = this.active;
    const handle = active.handle;
    if (handle === null) throw new Error(`segment ${active.path} is not open for appending`);
    const position = active.size;
    active.place(size, appendedAt, hash);
    writeAllSync(handle.fd, pieces, position);
  }

  private async writeChunk(chunk: QueuedAppend[]): Promise<void> {
    if (chunk.length === 0) return;
    const active = this.active;
    const handle = active.handle;
    if (handle === null) throw new Error(`segment ${active.path} is not open for appending`);
    const position = active.size;
    for (const item of chunk) active.place(item.size, item.appendedAt, item.hash);
    writeAllSync(
      handle.fd,
      chunk.flatMap((item) => item.pieces),
      position,
    );
    if (this.fsyncMode === 'interval') return;
    // fdatasync: flushes the data and the file size, skips the mtime — what a log needs.
    await handle.datasync();
    this.fsyncs++;
  }

  /** `'interval'` mode: one fsync for everything written, at most `fsyncIntervalMs` from now. */
  private scheduleSync(): void {
    if (this.syncTimer !== undefined || this.closed) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = undefined;
      this.syncWritten().catch((error: unknown) => {
        this.failure ??= new SpoolFailedError(error);
        this.log.error({ err: error, dir: this.dir }, 'spool fsync failed; appends now refused');
      });
    }, this.fsyncIntervalMs);
    this.syncTimer.unref();
  }

  /**
   * Makes every written record durable (`'interval'` mode; a no-op when nothing waits). Runs in
   * the control queue, so a rotated segment's handle is not closed under it.
   */
  private syncWritten(): Promise<void> {
    return this.control(async () => {
      if (this.writtenSeq <= this.durableSeq) return;
      const target = this.writtenSeq;
      // Earlier segments were synced when rotated away from: only the active one can lag.
      const handle = this.active.handle;
      if (handle !== null) await handle.datasync();
      this.fsyncs++;
      this.durableSeq = Math.max(this.durableSeq, target);
    });
  }

  private async rotate(): Promise<void> {
    const previous = this.active;
    if (this.fsyncMode === 'interval' && previous.handle !== null) {
      await previous.handle.datasync();
      this.fsyncs++;
    }
    const next = await createSegment(this.dir, {
      firstSeq: previous.lastSeq + 1,
      prevHash: previous.chainHead,
      createdAt: this.now(),
    });
    this.segments.push(next);
    // Closed through the control queue, so a `pending` read in progress finishes first.
    void this.control(() => previous.closeHandle());
  }

  /** Deletes segments whose records are all acknowledged — never the newest. */
  private async compact(): Promise<void> {
    let removable = 0;
    while (
      removable < this.segments.length - 1 &&
      (this.segments[removable] as Segment).lastSeq <= this.ackedThrough
    ) {
      removable++;
    }
    if (removable === 0) return;
    const removed = this.segments.splice(0, removable);
    for (const segment of removed) {
      await segment.closeHandle();
      await unlink(segment.path);
    }
    await fsyncDir(this.dir);
  }

  /** Bytes of the records `from..to` that are already placed in segments. */
  private bytesBetween(from: number, to: number): number {
    let bytes = 0;
    for (const segment of this.segments) {
      const first = Math.max(from, segment.firstSeq);
      const last = Math.min(to, segment.lastSeq);
      if (first > last) continue;
      const { start, end } = segment.byteRange(first, last);
      bytes += end - start;
    }
    return bytes;
  }

  private oldestAgeMs(): number {
    const seq = this.ackedThrough + 1;
    if (seq >= this.nextSeq) return 0;
    let appendedAt: number | undefined;
    const segment = this.segments.find((s) => s.firstSeq <= seq && seq <= s.lastSeq);
    if (segment !== undefined) appendedAt = segment.appendedAt[seq - segment.firstSeq];
    else appendedAt = this.queue[0]?.appendedAt;
    return appendedAt === undefined ? 0 : Math.max(0, this.now() - appendedAt);
  }
}
