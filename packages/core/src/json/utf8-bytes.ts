import { decodeUtf8IfValid } from '#utf8';

/**
 * Bytes to text for everything Toolgate reads off the network (agent requests at the gateway,
 * request bodies at the API): valid UTF-8 or refused. A lenient decode turns invalid bytes into
 * U+FFFD, so what is stored, hashed or forwarded would differ from what was sent.
 */

/** Either the text, or where the bytes first stop being UTF-8. */
export type Utf8Decoding = { ok: true; text: string } | { ok: false; offset: number };

/**
 * Decodes `bytes` when they are valid UTF-8 (the fast native check, no copy, on Node); otherwise
 * reports the offset of the first byte that starts an ill-formed sequence.
 */
export function decodeUtf8Strictly(bytes: Uint8Array): Utf8Decoding {
  const text = decodeUtf8IfValid(bytes);
  if (text !== undefined) return { ok: true, text };
  return { ok: false, offset: firstInvalidUtf8Offset(bytes) ?? 0 };
}

/** The message both the gateway and the API answer an invalid body with. */
export function invalidUtf8Message(offset: number): string {
  return `request body is not valid UTF-8 at byte ${offset}`;
}

/**
 * Offset of the first byte that begins an ill-formed UTF-8 sequence, or undefined when `bytes`
 * are well formed. Follows Unicode's table of well-formed byte sequences (3-7), so overlongs
 * (C0 AF, E0 80 AF), encoded surrogates (ED A0 80), code points past U+10FFFF (F4 90 …, F5…),
 * lone continuation bytes and truncated sequences are all refused, as a fatal `TextDecoder` and
 * Node's `isUtf8` refuse them. Only used once a body has already failed the native check.
 */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number | undefined {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const length = sequenceLength(bytes, i, lead);
    if (length === 0) return i;
    i += length;
  }
  return undefined;
}

const inRange = (byte: number | undefined, low: number, high: number) =>
  byte !== undefined && byte >= low && byte <= high;
const isContinuation = (byte: number | undefined) => inRange(byte, 0x80, 0xbf);

/** Length of the well-formed multi-byte sequence starting at `i`, or 0 when it is ill formed. */
function sequenceLength(bytes: Uint8Array, i: number, lead: number): number {
  const second = bytes[i + 1];
  if (inRange(lead, 0xc2, 0xdf)) return isContinuation(second) ? 2 : 0;
  if (inRange(lead, 0xe0, 0xef)) {
    // E0: no overlongs (second ≥ A0); ED: no surrogates (second ≤ 9F).
    const low = lead === 0xe0 ? 0xa0 : 0x80;
    const high = lead === 0xed ? 0x9f : 0xbf;
    return inRange(second, low, high) && isContinuation(bytes[i + 2]) ? 3 : 0;
  }
  if (inRange(lead, 0xf0, 0xf4)) {
    // F0: no overlongs (second ≥ 90); F4: nothing past U+10FFFF (second ≤ 8F).
    const low = lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xf4 ? 0x8f : 0xbf;
    return inRange(second, low, high) &&
      isContinuation(bytes[i + 2]) &&
      isContinuation(bytes[i + 3])
      ? 4
      : 0;
  }
  // 80–BF alone, C0/C1 (always overlong), F5–FF (never in UTF-8).
  return 0;
}
