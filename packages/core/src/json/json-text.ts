import type { JsonObject } from './json-value.ts';

/**
 * The `JSON.stringify` text of deep-frozen values that are serialized again and again (an
 * agent's tool list, the mediated declarations sent to the provider), so a request that embeds
 * one is serialized without walking it again. Keyed by identity: a frozen value cannot change,
 * so its text stays right for as long as the value lives.
 */
const texts = new WeakMap<object, string>();

/**
 * Remembers the text of `value`, which must be deep-frozen (the caller's promise: only the
 * top level is checked). Returns the text.
 */
export function rememberJsonText(value: object): string {
  const known = texts.get(value);
  if (known !== undefined) return known;
  const text = JSON.stringify(value);
  if (Object.isFrozen(value)) texts.set(value, text);
  return text;
}

/** The remembered `JSON.stringify` text of `value`, if any. */
export function knownJsonText(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? texts.get(value) : undefined;
}

/** Random per process, so no agent can put a marker into its own request. */
export const PROCESS_NONCE = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
  byte.toString(16).padStart(2, '0'),
).join('');
const MARKER = `\u0000toolgate-json-text-${PROCESS_NONCE}-`;

/** A top-level value of an object whose text is remembered, and the marker standing in for it. */
interface Spliced {
  /** The marker as it appears in the serialized copy (a JSON string). */
  marker: string;
  value: object;
  text: string;
}

/**
 * `JSON.stringify` of a copy of `object` in which each top-level value whose text is remembered
 * is replaced by a unique marker string; undefined when no value's text is remembered.
 */
function serializeAroundRemembered(
  object: JsonObject,
): { out: string; parts: Spliced[] } | undefined {
  let copy: JsonObject | undefined;
  const parts: Spliced[] = [];
  for (const key of Object.keys(object)) {
    const value = object[key];
    const text = knownJsonText(value);
    if (text === undefined) continue;
    copy ??= { ...object };
    const marker = `${MARKER}${parts.length}`;
    copy[key] = marker;
    parts.push({ marker: JSON.stringify(marker), value: value as object, text });
  }
  return copy ? { out: JSON.stringify(copy), parts } : undefined;
}

/**
 * Exactly `JSON.stringify(object)`, but the top-level values whose text is remembered are
 * spliced in instead of being serialized again.
 */
export function stringifyJsonObject(object: JsonObject): string {
  const serialized = serializeAroundRemembered(object);
  if (!serialized) return JSON.stringify(object);
  let { out } = serialized;
  for (const { marker, text } of serialized.parts) {
    const at = out.indexOf(marker);
    // Cannot happen (each marker is a top-level value of the copy); never splice blindly.
    if (at < 0) return JSON.stringify(object);
    out = out.slice(0, at) + text + out.slice(at + marker.length);
  }
  return out;
}

const utf8 = new TextEncoder();
const encodedTexts = new WeakMap<object, Uint8Array>();

/**
 * `stringifyJsonObject(object)` as UTF-8, in pieces to send one after the other. The remembered
 * values (an agent's tool list: most of a request's bytes, the same on every turn) are encoded
 * once and their bytes reused; only the rest of the request is encoded each time.
 */
export function jsonObjectUtf8(object: JsonObject): Uint8Array[] {
  const serialized = serializeAroundRemembered(object);
  if (!serialized) return [utf8.encode(JSON.stringify(object))];
  const pieces: Uint8Array[] = [];
  const { out } = serialized;
  let from = 0;
  for (const { marker, value, text } of serialized.parts) {
    const at = out.indexOf(marker, from);
    if (at < 0) return [utf8.encode(stringifyJsonObject(object))];
    pieces.push(utf8.encode(out.slice(from, at)));
    let bytes = encodedTexts.get(value);
    if (bytes === undefined) {
      bytes = utf8.encode(text);
      encodedTexts.set(value, bytes);
    }
    pieces.push(bytes);
    from = at + marker.length;
  }
  pieces.push(utf8.encode(out.slice(from)));
  return pieces;
}
