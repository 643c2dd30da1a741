import { createHash } from 'node:crypto';
import { crc32, gzipSync } from 'node:zlib';
import { canonicalize } from '@toolgate/core';

/** A member's canonical text, UTF-8 encoded once and shared by every object that holds it. */
export type EncodedMember = Buffer;

/** Encodes a value's canonical text once, for {@link CanonicalObjectText}. */
export function encodeMember(value: unknown): EncodedMember {
  return Buffer.from(canonicalize(value), 'utf8');
}

const memberPrefixes = new Map<string, Buffer>();

/**
 * The canonical (RFC 8785) text of an object whose members' canonical texts are already
 * encoded: the members in JCS order (keys by UTF-16 code units) joined with the bytes between
 * them, so the result is byte for byte `canonicalize(object)`, without serializing or encoding
 * the shared members again. A fleet's bundles differ only in `gateway` and their policies: each
 * is joined from a handful of buffers made once per change, and its ETag hashed over them.
 */
export class CanonicalObjectText {
  readonly parts: readonly Buffer[];
  readonly byteLength: number;

  constructor(members: Readonly<Record<string, EncodedMember>>) {
    const keys = Object.keys(members).sort(byCodeUnits);
    const parts: Buffer[] = [];
    keys.forEach((key, i) => {
      parts.push(memberPrefix(key, i === 0), members[key] as Buffer);
    });
    parts.push(keys.length === 0 ? Buffer.from('{}') : CLOSE);
    this.parts = parts;
    this.byteLength = parts.reduce((n, part) => n + part.length, 0);
  }

  /** `sha256:` + the hex SHA-256 of the text: `hashCanonical(object)`. */
  hash(): string {
    const hash = createHash('sha256');
    for (const part of this.parts) hash.update(part);
    return `sha256:${hash.digest('hex')}`;
  }

  /** The text as one buffer. */
  toBuffer(): Buffer {
    return Buffer.concat(this.parts as Buffer[], this.byteLength);
  }

  /**
   * The text gzipped, as a series of gzip members, one per part (RFC 1952 § 2.2: a gzip stream
   * may hold several; it decompresses to their concatenation). Each part is compressed once
   * and its member shared by every text that holds it: the members of a fleet's shared parts
   * are made once per change, and a gateway's own answer costs compressing its name.
   */
  gzip(): Buffer {
    const members = this.parts.map(gzipMember);
    return Buffer.concat(members);
  }
}

const gzipMembers = new WeakMap<Buffer, Buffer>();

/**
 * Parts up to this size go stored, not compressed: `gzipSync` costs ~60 µs a call however small
 * its input (a fresh zlib stream), which per woken gateway was more than its whole answer's
 * compression saved; a stored member costs a CRC.
 */
const STORED_MAX = 512;

function gzipMember(part: Buffer): Buffer {
  let member = gzipMembers.get(part);
  if (member === undefined) {
    member = part.length <= STORED_MAX ? storedGzipMember(part) : gzipSync(part);
    gzipMembers.set(part, member);
  }
  return member;
}

/** A gzip member (RFC 1952) holding `data` in one stored deflate block (RFC 1951 § 3.2.4). */
export function storedGzipMember(data: Buffer): Buffer {
  const member = Buffer.alloc(10 + 5 + data.length + 8);
  // ID1 ID2, CM = deflate, no flags, no mtime, no extra flags, OS unknown.
  member.set([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff], 0);
  member[10] = 1; // BFINAL, BTYPE 00 (stored)
  member.writeUInt16LE(data.length, 11);
  member.writeUInt16LE(~data.length & 0xffff, 13);
  data.copy(member, 15);
  member.writeUInt32LE(crc32(data), 15 + data.length);
  member.writeUInt32LE(data.length, 19 + data.length);
  return member;
}

const CLOSE = Buffer.from('}');

/** `{"key":` for the first member, `,"key":` after it; a handful of keys, cached. */
function memberPrefix(key: string, first: boolean): Buffer {
  const id = `${first ? '{' : ','}${key}`;
  let prefix = memberPrefixes.get(id);
  if (!prefix) {
    prefix = Buffer.from(`${first ? '{' : ','}${canonicalize(key)}:`, 'utf8');
    memberPrefixes.set(id, prefix);
  }
  return prefix;
}

/** JCS orders keys by their UTF-16 code units, which is what `<` on strings compares. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
