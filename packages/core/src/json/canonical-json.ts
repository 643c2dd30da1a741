/**
 * RFC 8785 JSON Canonicalization Scheme (JCS): one byte-exact serialization per JSON value, so
 * that hashes of tool declarations, receipts and policies are stable across producers.
 *
 * Input handling (decided here, mirrored by the tests):
 * - Object keys are sorted by UTF-16 code units (JS default string order); the output has no
 *   whitespace; strings and numbers are serialized as ECMAScript `JSON.stringify` does, which
 *   is exactly what JCS prescribes for I-JSON data (so `-0` becomes `0`).
 * - Like `JSON.stringify`: `toJSON()` is called (e.g. `Date` becomes its ISO string), boxed
 *   `Number`/`String`/`Boolean` objects are unwrapped, only own enumerable string keys count,
 *   symbol keys are ignored, and a property whose value is `undefined` is left out.
 * - Unlike `JSON.stringify`, which would quietly emit something else, these are rejected with a
 *   {@link CanonicalJsonError} naming the offending path: `NaN` and `±Infinity` (it would emit
 *   `null`), lone surrogates in strings or keys (not I-JSON), `BigInt`, functions and symbols
 *   anywhere, `undefined` inside an array or as the whole value, and cyclic structures.
 *
 * Built for the gateway's hot path: one recursive pass that concatenates strings; a native regex
 * scan instead of a `JSON.stringify` call for strings that need no escaping, memoized for short
 * strings; keys sorted in place, and only when not already in order; no path bookkeeping unless
 * something fails (the path is collected while the error unwinds).
 */

import { BadRequestError } from '../errors.ts';
import { isDeeplyFrozen } from './deep-freeze.ts';

/**
 * A value that JCS cannot represent. `path` locates it in the input, e.g.
 * `tools[3].function.parameters` (`''` for the value itself); the message includes it.
 */
export class CanonicalJsonError extends BadRequestError {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'CanonicalJsonError';
  }
}

/**
 * Serializes `value` as RFC 8785 canonical JSON: the input to every content hash, so two
 * semantically equal JSON values (whatever their key order or number spelling) hash the same.
 * Throws {@link CanonicalJsonError} for values that have no JSON/I-JSON form (see module doc).
 */
export function canonicalize(value: unknown): string {
  try {
    const out = serialize(value, '', [], 0);
    if (out === undefined) throw new Failure(`${describe(value)} has no JSON representation`);
    return out;
  } catch (error) {
    if (error instanceof Failure) throw canonicalJsonError(error);
    throw error;
  }
}

function canonicalJsonError(failure: Failure): CanonicalJsonError {
  const path = formatPath(failure.segments);
  const where = path === '' ? 'the top-level value' : path;
  return new CanonicalJsonError(`Cannot canonicalize ${where}: ${failure.message}`, path);
}

/** A member's value and its canonical text, computed earlier (see {@link canonicalizeMembers}). */
export interface KnownMember {
  value: unknown;
  text: string;
}

/**
 * `canonicalize(object)` for a plain object some of whose members' canonical texts are known
 * already: a member whose value is identical (`===`) to the known one's takes its text, the rest
 * are serialized here. The same text as `canonicalize(object)` (a canonical object is its members'
 * canonical texts in sorted key order), with the same errors. For a receipt whose request side was
 * serialized while the provider worked.
 */
export function canonicalizeMembers(
  object: Readonly<Record<string, unknown>>,
  known: ReadonlyMap<string, KnownMember>,
): string {
  const keys = Object.keys(object);
  keys.sort();
  const stack: object[] = [object];
  let out = '{';
  let sep = '';
  let k = '';
  try {
    for (k of keys) {
      const value = object[k];
      const member = known.get(k);
      const text =
        member !== undefined && member.value === value
          ? member.text
          : serialize(value, k, stack, 1);
      if (text === undefined) continue;
      out += `${sep}${quoteCached(k, 'key')}:${text}`;
      sep = ',';
    }
  } catch (error) {
    if (error instanceof Failure) {
      error.segments.push(k);
      throw canonicalJsonError(error);
    }
    throw error;
  }
  return `${out}}`;
}

/** Internal: thrown at the failing value; each enclosing container adds its key on the way out. */
class Failure {
  /** Innermost segment first. */
  readonly segments: (string | number)[] = [];
  constructor(readonly message: string) {}
}

/** `String.prototype.isWellFormed` is ES2024: in Node 20+ and current browsers, not in our lib. */
interface WellFormedCheck {
  isWellFormed(): boolean;
}

const nativeIsWellFormed =
  typeof (String.prototype as Partial<WellFormedCheck>).isWellFormed === 'function';
/** Fallback: a high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function isWellFormed(s: string): boolean {
  return nativeIsWellFormed
    ? (s as unknown as WellFormedCheck).isWellFormed()
    : !LONE_SURROGATE.test(s);
}

/**
 * Strings without quotes, backslashes, control characters or surrogates (the vast majority) need
 * no escaping. Checking that with one native regex scan and concatenating is several times faster
 * than calling `JSON.stringify` on each short string; the rest go through `JSON.stringify`.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const PLAIN = /^[^\u0000-\u001f"\\\ud800-\udfff]*$/;

function quote(s: string, what: 'string' | 'key'): string {
  if (PLAIN.test(s)) return `"${s}"`;
  if (!isWellFormed(s)) throw new Failure(`${what} contains a lone surrogate`);
  return JSON.stringify(s);
}

/**
 * Keys and short values (`"type"`, `"string"`, `"object"`, enum members…) repeat constantly in
 * tool declarations; memoizing their quoted form saves the scan. Only strings up to
 * {@link CACHEABLE_LENGTH} are kept, and the cache is dropped whenever it reaches
 * {@link CACHE_LIMIT} entries, so its memory stays bounded whatever the input.
 */
const quoted = new Map<string, string>();
const CACHEABLE_LENGTH = 32;
const CACHE_LIMIT = 4096;

function quoteCached(s: string, what: 'string' | 'key'): string {
  if (s.length > CACHEABLE_LENGTH) return quote(s, what);
  let q = quoted.get(s);
  if (q === undefined) {
    q = quote(s, what);
    if (quoted.size >= CACHE_LIMIT) quoted.clear();
    quoted.set(s, q);
  }
  return q;
}

/**
 * Sorts `keys` in place by UTF-16 code units, given that `keys[0..sorted)` is already in order.
 * Insertion sort beats `Array.prototype.sort` by far for the small objects JSON is made of.
 */
function sortKeys(keys: string[], sorted: number): void {
  const n = keys.length;
  if (n > 32) {
    keys.sort();
    return;
  }
  for (let i = sorted; i < n; i++) {
    const k = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > k) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = k;
  }
}

/**
 * Returns the canonical text of `value`, or `undefined` when it is to be skipped as an object
 * property (`undefined`, or `toJSON()` returning `undefined`). `key` is only handed to `toJSON`;
 * `stack[0..depth)` holds the containers being serialized, for cycle detection.
 */
function serialize(
  value: unknown,
  key: string | number,
  stack: object[],
  depth: number,
): string | undefined {
  switch (typeof value) {
    case 'string':
      return quoteCached(value, 'string');
    case 'number':
      if (!Number.isFinite(value)) throw new Failure(`${value} is not a JSON number`);
      // Number::toString is exactly JCS §3.2.2.3, and it already prints -0 as "0".
      return `${value}`;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      return serializeObject(value, key, stack, depth);
    case 'undefined':
      return undefined;
    default:
      throw new Failure(`${describe(value)} has no JSON representation`);
  }
}

/**
 * Canonical text of deeply frozen objects, which can never change: the engine's memoized catalog
 * outcomes (tool records, mediation blocks) are frozen and shared by every request, so hashing a
 * receipt re-serializes only what is new in it. A WeakMap: entries go with their objects.
 */
const frozenTexts = new WeakMap<object, string>();

function serializeObject(
  input: object,
  key: string | number,
  stack: object[],
  depth: number,
): string | undefined {
  if (!Object.isFrozen(input)) return serializeFresh(input, key, stack, depth);
  const cached = frozenTexts.get(input);
  if (cached !== undefined) return cached;
  const text = serializeFresh(input, key, stack, depth);
  if (text !== undefined && isDeeplyFrozen(input)) frozenTexts.set(input, text);
  return text;
}

function serializeFresh(
  input: object,
  key: string | number,
  stack: object[],
  depth: number,
): string | undefined {
  let value = input;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    // As in JSON.stringify, toJSON is called once: its result is not asked for toJSON again.
    const replaced: unknown = toJSON.call(value, typeof key === 'number' ? `${key}` : key);
    if (typeof replaced !== 'object' || replaced === null) {
      return serialize(replaced, key, stack, depth);
    }
    value = replaced;
  }
  for (let i = 0; i < depth; i++) {
    if (stack[i] === value) throw new Failure('cyclic structure');
  }
  stack[depth] = value;
  const inner = depth + 1;

  if (Array.isArray(value)) {
    const n = value.length;
    if (n === 0) return '[]';
    let out = '[';
    let i = 0;
    try {
      for (; i < n; i++) {
        const item = serialize(value[i], i, stack, inner);
        if (item === undefined) throw new Failure('undefined is not allowed in an array');
        out += i === 0 ? item : `,${item}`;
      }
    } catch (error) {
      if (error instanceof Failure) error.segments.push(i);
      throw error;
    }
    return `${out}]`;
  }

  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    if (value instanceof Number || value instanceof String || value instanceof Boolean) {
      return serialize(value.valueOf(), key, stack, depth);
    }
    if (typeof BigInt === 'function' && value instanceof BigInt) {
      throw new Failure('BigInt has no JSON representation');
    }
  }

  const keys = Object.keys(value);
  const n = keys.length;
  // Most objects are small and often already sorted; only sort (in place, Object.keys returns a
  // fresh array) when some pair is out of order. Default sort compares UTF-16 code units.
  for (let i = 1; i < n; i++) {
    if ((keys[i - 1] as string) > (keys[i] as string)) {
      sortKeys(keys, i);
      break;
    }
  }
  let out = '{';
  let sep = '';
  let i = 0;
  try {
    for (; i < n; i++) {
      const k = keys[i] as string;
      const item = serialize((value as Record<string, unknown>)[k], k, stack, inner);
      if (item === undefined) continue;
      out += `${sep}${quoteCached(k, 'key')}:${item}`;
      sep = ',';
    }
  } catch (error) {
    if (error instanceof Failure) error.segments.push(keys[i] as string);
    throw error;
  }
  return `${out}}`;
}

function describe(value: unknown): string {
  switch (typeof value) {
    case 'bigint':
      return 'BigInt';
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default:
      return String(value);
  }
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `['parameters', 'function', 3, 'tools']` → `tools[3].function.parameters`. */
function formatPath(segments: readonly (string | number)[]): string {
  let path = '';
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i] as string | number;
    if (typeof segment === 'number') path += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) path += path === '' ? segment : `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}
