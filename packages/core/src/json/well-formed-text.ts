import { formatFieldPath } from '../errors.ts';

/**
 * One check, shared by the gateway and the API, for text that cannot be stored, hashed or
 * forwarded faithfully: bytes that are not UTF-8, and strings (values or keys) holding a lone
 * UTF-16 surrogate. PostgreSQL's `jsonb` and RFC 8785 (I-JSON) reject lone surrogates, and a
 * decoder that replaces invalid UTF-8 with U+FFFD silently stores something else than was sent;
 * both are refused at the door, naming the field.
 */

interface WellFormedCheck {
  isWellFormed(): boolean;
}
const nativeIsWellFormed =
  typeof (String.prototype as Partial<WellFormedCheck>).isWellFormed === 'function';
/** Fallback for Node 20: a high surrogate not followed by a low one, or a lone low one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when `s` holds no lone surrogate (every string that came from valid UTF-8 does). */
export function isWellFormedString(s: string): boolean {
  return nativeIsWellFormed
    ? (s as unknown as WellFormedCheck).isWellFormed()
    : !LONE_SURROGATE.test(s);
}

/**
 * A `\uD800`–`\uDFFF` escape in JSON text: the only way a lone surrogate reaches a parsed value
 * when the text itself is valid UTF-8. A hit may be a false alarm (`"\\ud800"`, a paired
 * surrogate); {@link illFormedPath} on the parsed value decides.
 */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * Cheap pre-check on JSON text decoded from valid UTF-8: false means no parsed string can hold
 * a lone surrogate, so the walk can be skipped (the hot path: one native scan, no allocation).
 */
export function jsonTextMayHoldLoneSurrogate(text: string): boolean {
  return SURROGATE_ESCAPE.test(text);
}

/**
 * The path (`messages[2].content`, `metadata.annotations.note`) of the first string value or
 * object key in `value` that holds a lone surrogate, or undefined when there is none. A bad key
 * is named by its parent's path plus `(key)`.
 */
export function illFormedPath(value: unknown): string | undefined {
  return firstTextPath(value, (s) => !isWellFormedString(s));
}

/**
 * The path of the first string value or object key in `value` holding U+0000, which
 * PostgreSQL's text and `jsonb` cannot store, or undefined (paths as {@link illFormedPath}'s).
 */
export function nulPath(value: unknown): string | undefined {
  return firstTextPath(value, (s) => s.includes('\u0000'));
}

function firstTextPath(value: unknown, bad: (s: string) => boolean): string | undefined {
  const path: PropertyKey[] = [];
  return walk(value, path, bad) ? formatFieldPath(path) : undefined;
}

function walk(value: unknown, path: PropertyKey[], bad: (s: string) => boolean): boolean {
  if (typeof value === 'string') return bad(value);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      if (walk(value[i], path, bad)) return true;
      path.pop();
    }
    return false;
  }
  for (const key of Object.keys(value)) {
    if (bad(key)) {
      path.push('(key)');
      return true;
    }
    path.push(key);
    if (walk((value as Record<string, unknown>)[key], path, bad)) return true;
    path.pop();
  }
  return false;
}

/**
 * For JSON text that was valid UTF-8: the path of the first lone surrogate in `parsed` (its
 * parse), or undefined. Scans the text first, so well-formed requests cost one regex pass.
 */
export function illFormedPathInJson(text: string, parsed: unknown): string | undefined {
  return jsonTextMayHoldLoneSurrogate(text) ? illFormedPath(parsed) : undefined;
}

const nativeToWellFormed =
  typeof (String.prototype as { toWellFormed?: unknown }).toWellFormed === 'function';
const LONE_SURROGATES = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `s` with every lone surrogate replaced by U+FFFD (what a UTF-8 encoder would write). */
export function toWellFormedString(s: string): string {
  if (isWellFormedString(s)) return s;
  return nativeToWellFormed
    ? (s as unknown as { toWellFormed(): string }).toWellFormed()
    : s.replace(LONE_SURROGATES, '\ufffd');
}

/**
 * Text that leaves the process (a status message, an error, a log field) bounded to `max` UTF-16
 * units, `…` included, never cut inside a surrogate pair, with lone surrogates and U+0000 (which
 * PostgreSQL text cannot hold) replaced by U+FFFD: always storable and encodable, whatever it was
 * made from.
 */
export function boundedText(text: string, max: number): string {
  let out = text;
  if (out.length > max) {
    let end = Math.max(0, max - 1);
    const last = out.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end--;
    out = `${out.slice(0, end)}…`;
  }
  out = toWellFormedString(out);
  return out.includes('\u0000') ? out.replaceAll('\u0000', '\ufffd') : out;
}
