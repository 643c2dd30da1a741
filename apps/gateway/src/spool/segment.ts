import { writevSync } from 'node:fs';
import { type FileHandle, open, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { fsyncDir } from './durable-fs.ts';
import { SpoolCorruptError } from './errors.ts';
import { decodeRecord } from './record-codec.ts';

/**
 * What a segment starts with. `prevHash` is the chain head when the segment was created, so the
 * head survives even when every older segment has been shipped and deleted and this one holds
 * no record yet.
 */
export interface SegmentHeader {
  /** Seq of the segment's first record (records are consecutive). */
  firstSeq: number;
  prevHash: string | null;
  createdAt: number;
}

/** `TGSPOOL1`, u32 header length, u32 CRC-32 of the header JSON, then the JSON. */
const MAGIC = Buffer.from('TGSPOOL1', 'latin1');
const PREAMBLE_BYTES = MAGIC.length + 8;
const FILE_NAME = /^segment-(\d{16})\.log$/;
/** A header is ~100 bytes; a file much longer than that got past its header before the crash. */
const MAX_TORN_HEADER_FILE_BYTES = 4096;

/** Zero-padded so that name order is seq order. */
export function segmentFileName(firstSeq: number): string {
  return `segment-${String(firstSeq).padStart(16, '0')}.log`;
}

export function isSegmentFileName(name: string): boolean {
  return FILE_NAME.test(name);
}

/**
 * One append-only file of consecutive records. In memory it keeps where each record starts (so
 * a batch is read back with one positional read) and when it was appended — never the receipts.
 */
export class Segment {
  /** Byte offset of each record; index = seq - firstSeq. */
  readonly offsets: number[] = [];
  readonly appendedAt: number[] = [];

  constructor(
    readonly path: string,
    readonly header: SegmentHeader,
    /** End of the last record handed to the file (written, or being written). */
    public size: number,
    /** `hash` of the last record, or null when the segment has none yet. */
    public lastHash: string | null,
    /** Open for appending (newest segment) or kept until pending reads are done; else null. */
    public handle: FileHandle | null,
  ) {}

  get firstSeq(): number {
    return this.header.firstSeq;
  }

  get count(): number {
    return this.offsets.length;
  }

  /** `firstSeq - 1` while empty. */
  get lastSeq(): number {
    return this.header.firstSeq + this.offsets.length - 1;
  }

  /** The chain head as of this segment's end. */
  get chainHead(): string | null {
    return this.offsets.length > 0 ? this.lastHash : this.header.prevHash;
  }

  /** Records a record placed at the current end; returns its offset. */
  place(recordBytes: number, appendedAt: number, hash: string): number {
    const offset = this.size;
    this.offsets.push(offset);
    this.appendedAt.push(appendedAt);
    this.size += recordBytes;
    this.lastHash = hash;
    return offset;
  }

  /** Bytes of the records with seqs `from..to` inclusive. */
  byteRange(from: number, to: number): { start: number; end: number } {
    const first = from - this.firstSeq;
    const afterLast = to - this.firstSeq + 1;
    return {
      start: this.offsets[first] as number,
      end: afterLast < this.offsets.length ? (this.offsets[afterLast] as number) : this.size,
    };
  }

  async read(start: number, end: number): Promise<Buffer> {
    const handle = this.handle ?? (await open(this.path, 'r'));
    try {
      const buffer = Buffer.allocUnsafe(end - start);
      let done = 0;
      while (done < buffer.length) {
        const { bytesRead } = await handle.read(buffer, done, buffer.length - done, start + done);
        if (bytesRead === 0) {
          throw new SpoolCorruptError(this.path, start + done, 'file is shorter than its records');
        }
        done += bytesRead;
      }
      return buffer;
    } finally {
      if (handle !== this.handle) await handle.close();
    }
  }

  async closeHandle(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    await handle?.close();
  }
}

/**
 * Creates the next segment. Its header is fsynced and its name made durable (directory fsync)
 * before any record goes in, so the chain head it carries cannot be lost.
 */
export async function createSegment(dir: string, header: SegmentHeader): Promise<Segment> {
  const path = join(dir, segmentFileName(header.firstSeq));
  const bytes = encodeHeader(header);
  const handle = await open(path, 'wx+');
  try {
    writeAllSync(handle.fd, [bytes], 0);
    await handle.sync();
    await fsyncDir(dir);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return new Segment(path, header, bytes.length, null, handle);
}

export interface LoadedSegment {
  /** Null when the newest segment's header itself was torn: it never held a durable record. */
  segment: Segment | null;
  /** Bytes cut off the end (only ever on the newest segment). */
  tornBytes: number;
  tornReason?: string;
}

/**
 * Reads and validates a segment. Only the newest segment can legitimately end in a torn record
 * (the crash hit while it was being written): its tail from the first invalid record on is cut
 * off — nothing there was acknowledged, since the fsync that would have covered it never
 * finished. Anywhere else an invalid byte is corruption.
 */
export async function loadSegment(path: string, newest: boolean): Promise<LoadedSegment> {
  const bytes = await readFile(path);
  const header = decodeHeader(bytes, path);
  if ('invalid' in header) {
    if (!newest || bytes.length > MAX_TORN_HEADER_FILE_BYTES) {
      throw new SpoolCorruptError(path, 0, header.invalid);
    }
    return { segment: null, tornBytes: bytes.length, tornReason: header.invalid };
  }
  const segment = new Segment(path, header.header, header.bytes, null, null);
  let offset = header.bytes;
  let lastPayload: Buffer | null = null;
  let invalid: string | null = null;
  while (offset < bytes.length) {
    const record = decodeRecord(bytes, offset);
    if ('invalid' in record) {
      invalid = record.invalid;
      break;
    }
    if (record.seq !== segment.lastSeq + 1) {
      invalid = `expected seq ${segment.lastSeq + 1}, found ${record.seq}`;
      break;
    }
    segment.offsets.push(offset);
    segment.appendedAt.push(record.appendedAt);
    lastPayload = record.payload;
    offset += record.size;
  }
  if (invalid !== null && !newest) throw new SpoolCorruptError(path, offset, invalid);
  segment.size = offset;
  if (lastPayload !== null) segment.lastHash = hashOf(lastPayload, path);
  if (newest) {
    segment.handle = await open(path, 'r+');
    if (offset < bytes.length) {
      await segment.handle.truncate(offset);
      await segment.handle.sync();
    }
  }
  return {
    segment,
    tornBytes: bytes.length - offset,
    ...(invalid !== null ? { tornReason: invalid } : {}),
  };
}

/**
 * Writes `pieces` one after the other at `position`, synchronously (`pwritev`). Appends to the
 * active segment use this rather than the thread pool: a write into the page cache of a 50-tool
 * receipt took ~35 µs at the median in a loop on the CI machine (p99 ~120 µs), the same write
 * through a libuv thread ~80 µs (p99 ~330 µs), and the agent's response waits for it. The
 * fsync, which waits for the disk, stays asynchronous.
 */
export function writeAllSync(fd: number, pieces: Buffer[], position: number): void {
  let remaining = unwritten(pieces, 0);
  let offset = position;
  while (remaining.length > 0) {
    const written = writevSync(fd, remaining, offset);
    if (written === 0) throw new Error(`write to the spool made no progress at offset ${offset}`);
    offset += written;
    remaining = unwritten(remaining, written);
  }
}

/**
 * What is left of `pieces` once their first `written` bytes are out (a regular file may take
 * less than asked in one call): whole pieces skipped, the one the write stopped in cut. Empty
 * pieces are left out.
 */
export function unwritten(pieces: ReadonlyArray<Buffer>, written: number): Buffer[] {
  const left: Buffer[] = [];
  let skip = written;
  for (const piece of pieces) {
    if (skip >= piece.length) {
      skip -= piece.length;
      continue;
    }
    left.push(skip > 0 ? piece.subarray(skip) : piece);
    skip = 0;
  }
  return left;
}

function encodeHeader(header: SegmentHeader): Buffer {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const bytes = Buffer.allocUnsafe(PREAMBLE_BYTES + json.length);
  MAGIC.copy(bytes, 0);
  bytes.writeUInt32BE(json.length, MAGIC.length);
  bytes.writeUInt32BE(crc32(json), MAGIC.length + 4);
  json.copy(bytes, PREAMBLE_BYTES);
  return bytes;
}

function decodeHeader(
  bytes: Buffer,
  path: string,
): { header: SegmentHeader; bytes: number } | { invalid: string } {
  if (bytes.length < PREAMBLE_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) {
    return { invalid: 'missing segment header' };
  }
  const length = bytes.readUInt32BE(MAGIC.length);
  const end = PREAMBLE_BYTES + length;
  if (end > bytes.length) return { invalid: 'incomplete segment header' };
  const json = bytes.subarray(PREAMBLE_BYTES, end);
  if (crc32(json) !== bytes.readUInt32BE(MAGIC.length + 4)) {
    return { invalid: 'segment header checksum mismatch' };
  }
  const header = parseJson(json, path) as SegmentHeader;
  const named = Number(FILE_NAME.exec(basename(path))?.[1]);
  if (header.firstSeq !== named) {
    // Intact but wrong: not something a crash produces.
    throw new SpoolCorruptError(path, 0, `header firstSeq ${header.firstSeq} ≠ file name`);
  }
  return { header, bytes: end };
}

function hashOf(payload: Buffer, path: string): string {
  const { hash } = parseJson(payload, path) as { hash?: unknown };
  if (typeof hash !== 'string') throw new SpoolCorruptError(path, 0, 'last record has no hash');
  return hash;
}

/** Only reached for bytes whose checksum matched, so a parse failure is corruption. */
function parseJson(bytes: Buffer, path: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new SpoolCorruptError(path, 0, `unparsable JSON: ${(error as Error).message}`);
  }
}
