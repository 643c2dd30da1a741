import { crc32 } from 'node:zlib';

/**
 * On-disk framing of one spooled receipt (all integers big-endian):
 *
 * ```
 * 0   u32  payload length (bytes of UTF-8 JSON)
 * 4   u32  CRC-32 over bytes 0..4 and 8..end (everything but itself)
 * 8   u64  seq          (the spool-wide sequence number, so a stray record cannot pass as another)
 * 16  u64  appendedAt   (ms since the epoch, for the age of the oldest unshipped receipt)
 * 24  …    payload      (the receipt as JSON)
 * ```
 *
 * The CRC is what tells a complete record from a torn one after a crash: a write that was cut
 * short, or pages that reached the disk out of order, fail it. `zlib.crc32` is built in since
 * Node 20.15/22.2 (the workspace requires >= 20.19), so no table of our own.
 */
export const RECORD_HEADER_BYTES = 24;

/** Far above any receipt; a larger length prefix can only be garbage. */
export const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

export interface DecodedRecord {
  seq: number;
  appendedAt: number;
  /** Total bytes of the record, header included. */
  size: number;
  payload: Buffer;
}

/**
 * Frames a payload given in pieces: the 24-byte header, then the pieces themselves (not copied).
 * Written one after the other they are the record.
 */
export function encodeRecord(
  seq: number,
  appendedAt: number,
  parts: ReadonlyArray<Buffer>,
): Buffer[] {
  let length = 0;
  for (const part of parts) length += part.length;
  const header = Buffer.allocUnsafe(RECORD_HEADER_BYTES);
  header.writeUInt32BE(length, 0);
  header.writeBigUInt64BE(BigInt(seq), 8);
  // Clamped: an injected clock may hand out fractions; a u64 takes whole non-negative ms.
  header.writeBigUInt64BE(BigInt(Math.max(0, Math.round(appendedAt))), 16);
  // The CRC runs over the pieces in order: the same value as over the joined record.
  let crc = crc32(header.subarray(8), crc32(header.subarray(0, 4)));
  for (const part of parts) crc = crc32(part, crc);
  header.writeUInt32BE(crc, 4);
  return [header, ...parts];
}

/**
 * Decodes the record starting at `offset`, or says why the bytes there are not a complete,
 * intact record (the caller decides whether that is a torn tail or corruption).
 */
export function decodeRecord(buffer: Buffer, offset: number): DecodedRecord | { invalid: string } {
  const available = buffer.length - offset;
  if (available < RECORD_HEADER_BYTES) return { invalid: 'incomplete record header' };
  const length = buffer.readUInt32BE(offset);
  if (length === 0 || length > MAX_PAYLOAD_BYTES) return { invalid: `bad length ${length}` };
  const size = RECORD_HEADER_BYTES + length;
  if (available < size) return { invalid: 'incomplete record payload' };
  const record = buffer.subarray(offset, offset + size);
  if (record.readUInt32BE(4) !== recordChecksum(record)) return { invalid: 'checksum mismatch' };
  return {
    seq: Number(record.readBigUInt64BE(8)),
    appendedAt: Number(record.readBigUInt64BE(16)),
    size,
    payload: record.subarray(RECORD_HEADER_BYTES),
  };
}

function recordChecksum(record: Buffer): number {
  return crc32(record.subarray(8), crc32(record.subarray(0, 4)));
}
