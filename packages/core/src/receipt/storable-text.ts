import { toWellFormedString } from '../json/well-formed-text.ts';
import { scrubSecrets } from '../secrets.ts';
import { RECEIPT_LIMITS } from './receipt-limits.ts';

/**
 * What making a receipt's values storable changed: the paths it cut (length, or list entries
 * dropped) and the paths whose values it redacted as secret-shaped. Both end up in the receipt.
 */
export class StorableNotes {
  readonly truncated: string[] = [];
  readonly redacted: string[] = [];

  /**
   * Notes that the value at `path` was cut. A `whole` list cut (evidence entries dropped) is
   * always noted; single values only while the list has room (bounded, like everything else).
   */
  cut(path: string, whole = false): void {
    if (whole) this.truncated.push(path);
    else if (this.truncated.length < RECEIPT_LIMITS.truncatedPaths - WHOLE_LIST_CUTS) {
      this.truncated.push(path);
    }
  }

  /**
   * `text` as a receipt may hold it: lone surrogates and U+0000 replaced with U+FFFD (canonical
   * JSON and PostgreSQL refuse them), secret-shaped parts redacted when `scrub`, and at most `limit` code
   * units (never splitting a surrogate pair). Notes what changed under `path`.
   */
  text(path: string, text: string, limit: number, scrub = false): string {
    let out = toWellFormedString(text);
    // PostgreSQL text cannot hold U+0000: the API refuses a receipt with one for good.
    if (out.includes('\u0000')) out = out.replaceAll('\u0000', '\ufffd');
    if (scrub) {
      const scrubbed = scrubSecrets(out);
      if (scrubbed !== out) {
        this.redacted.push(path);
        out = scrubbed;
      }
    }
    if (out.length > limit) {
      this.cut(path);
      out = cutAt(out, limit);
    }
    return out;
  }

  /** {@link text} for an optional value. */
  optional(path: string, text: string | undefined, limit: number, scrub = false) {
    return text === undefined ? undefined : this.text(path, text, limit, scrub);
  }
}

/** Lists cut as a whole at most once each: tool calls, hosted events, tool results, redacted paths. */
const WHOLE_LIST_CUTS = 4;

/** The first `limit` code units of `text`, one fewer when that would split a surrogate pair. */
function cutAt(text: string, limit: number): string {
  const last = text.charCodeAt(limit - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? limit - 1 : limit);
}

/** Bytes of `text` in UTF-8 (a lone surrogate counts as the 3 bytes of U+FFFD). */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
