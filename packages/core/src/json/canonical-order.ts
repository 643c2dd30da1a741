/**
 * Canonical JSON for values parsed from JSON text that is in canonical order already, as what
 * our gateways send is (receipts as their canonical text with `hash` appended, tool sets as
 * their canonical text). `canonicalize` builds its text by concatenation, which for the API's
 * ingest meant ~4× the text's size in garbage and a rope that hashing must flatten first; the
 * engine's own `JSON.stringify` writes one flat string. The two agree exactly on a value that is
 * plain JSON (strings, finite numbers, booleans, null, arrays, plain objects) whose every
 * object's keys are in canonical order and which holds no lone surrogate: JCS serializes
 * strings and numbers as `JSON.stringify` does (canonical-json.ts), so only the key order and
 * the refusals differ. Anything else (a key out of order, a lone surrogate, a `Date`…) takes
 * `canonicalize`, so the result, and every error, is always `canonicalize`'s.
 */

import { canonicalize } from './canonical-json.ts';

/** `canonicalize(value)`, written by `JSON.stringify` when the value is in canonical order. */
export function canonicalizeParsed(value: unknown): string {
  if (inCanonicalOrder(value, 0)) {
    const text = JSON.stringify(value);
    if (!holdsSurrogateEscape(text)) return text;
  }
  return canonicalize(value);
}

/**
 * `{ canonical, json }` of an object whose last key is `last`: `canonical` is
 * `canonicalize(object without last)`, `json` is that text with `last` appended as its final
 * member, `"<last>":<its JSON>` (the receipts' stored form: hash appended). Undefined unless
 * the object is in that order already (then the caller canonicalizes the long way).
 */
export function canonicalWithLastMember(
  object: object,
  last: string,
): { canonical: string; json: string } | undefined {
  if (!isPlainObject(object)) return undefined;
  let previous: string | undefined;
  let lastSeen = false;
  for (const key in object) {
    if (lastSeen) return undefined;
    const member = (object as Record<string, unknown>)[key];
    if (key === last) {
      if (typeof member !== 'string') return undefined;
      lastSeen = true;
      continue;
    }
    if (previous !== undefined && !(previous < key)) return undefined;
    if (!inCanonicalOrder(member, 1)) return undefined;
    previous = key;
  }
  if (!lastSeen || previous === undefined) return undefined;
  const json = JSON.stringify(object);
  if (holdsSurrogateEscape(json)) return undefined;
  const suffix = `,${JSON.stringify(last)}:${JSON.stringify((object as Record<string, string>)[last])}}`;
  if (!json.endsWith(suffix)) return undefined;
  return { canonical: `${json.slice(0, json.length - suffix.length)}}`, json };
}

/** Deeper than any body the API or the gateway accepts; past it, `canonicalize` decides. */
const MAX_DEPTH = 512;

/**
 * True when `JSON.stringify(value)` is its canonical text, lone surrogates aside: plain JSON
 * whose objects all list their keys in canonical order (UTF-16 code units, as JCS sorts them).
 * A `for…in` walk, which allocates nothing; it enumerates own keys in `JSON.stringify`'s order
 * (integer-like keys first, ascending: such an object is out of canonical order unless that is
 * also their string order) and then inherited ones, which only make an object look unsorted.
 */
function inCanonicalOrder(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype || hasToJson(value)) return false;
    for (let i = 0; i < value.length; i++) {
      if (!inCanonicalOrder(value[i], depth + 1)) return false;
    }
    return true;
  }
  if (!isPlainObject(value)) return false;
  let previous: string | undefined;
  for (const key in value) {
    if (previous !== undefined && !(previous < key)) return false;
    if (!inCanonicalOrder((value as Record<string, unknown>)[key], depth + 1)) return false;
    previous = key;
  }
  return true;
}

/** An object as `JSON.parse` makes them: `Object.prototype`, no `toJSON` to call. */
function isPlainObject(value: object): boolean {
  return Object.getPrototypeOf(value) === Object.prototype && !hasToJson(value);
}

function hasToJson(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

/**
 * `JSON.stringify` writes a lone surrogate as `\udXXX`, which `canonicalize` refuses, and only
 * such escapes start with `\ud` (it escapes nothing else above U+001F). A string holding a
 * backslash followed by `ud8`… matches too and merely takes the long way.
 */
function holdsSurrogateEscape(text: string): boolean {
  return text.includes('\\u') && SURROGATE_ESCAPE.test(text);
}

const SURROGATE_ESCAPE = /\\ud[89a-f]/;
