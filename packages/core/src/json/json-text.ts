import type { JsonObject, JsonValue } from './json-value.ts';

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

const utf8 = new TextEncoder();
/** The UTF-8 bytes of remembered texts, per value: encoded once. */
const encodedTexts = new WeakMap<object, Uint8Array>();

/**
 * Exactly `JSON.stringify(object)` as UTF-8, in pieces to send one after the other. The
 * top-level values whose text is remembered (an agent's tool list: most of a request's bytes,
 * the same on every turn) are neither serialized nor encoded again: a copy of `object` with a
 * unique marker string in their place is serialized, and their bytes go where the markers are.
 */
export function jsonObjectUtf8(object: JsonObject): Uint8Array[] {
  let copy: JsonObject | undefined;
  const spliced: Array<{ marker: string; value: object; text: string }> = [];
  for (const key of Object.keys(object)) {
    const value = object[key];
    const text = knownJsonText(value);
    if (text === undefined) continue;
    copy ??= { ...object };
    const marker = `${MARKER}${spliced.length}`;
    copy[key] = marker;
    spliced.push({ marker: JSON.stringify(marker), value: value as object, text });
  }
  if (!copy) return [utf8.encode(JSON.stringify(object))];
  const out = JSON.stringify(copy);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const { marker, value, text } of spliced) {
    const at = out.indexOf(marker, from);
    // Cannot happen (each marker is a top-level value of the copy); never splice blindly.
    if (at < 0) return [utf8.encode(JSON.stringify(object))];
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

/**
 * Exactly `JSON.stringify(object)`, with the remembered texts of values at its top level and one
 * level down (a Responses stream event's `response.tools`) put in place instead of serialized
 * again: a copy with unique markers is serialized, and each marker replaced by its text.
 */
export function jsonTextWithRemembered(object: JsonObject): string {
  const spliced: Array<{ marker: string; text: string }> = [];
  const withMarkers = (value: JsonObject, depth: number): JsonObject | undefined => {
    let copy: JsonObject | undefined;
    for (const key of Object.keys(value)) {
      const member = value[key];
      const text = knownJsonText(member);
      let replacement: JsonValue | undefined;
      if (text !== undefined) {
        const marker = `${MARKER}${spliced.length}`;
        spliced.push({ marker: JSON.stringify(marker), text });
        replacement = marker;
      } else if (depth === 0 && isPlainObject(member)) {
        replacement = withMarkers(member, 1);
      }
      if (replacement === undefined) continue;
      copy ??= { ...value };
      copy[key] = replacement;
    }
    return copy;
  };
  const copy = withMarkers(object, 0);
  if (copy === undefined) return JSON.stringify(object);
  let out = JSON.stringify(copy);
  for (const { marker, text } of spliced) {
    const at = out.indexOf(marker);
    // Cannot happen (each marker is a value of the copy); never splice blindly.
    if (at < 0) return JSON.stringify(object);
    out = out.slice(0, at) + text + out.slice(at + marker.length);
  }
  return out;
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
