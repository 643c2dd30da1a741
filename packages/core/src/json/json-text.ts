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

/**
 * Exactly `JSON.stringify(object)`, but the top-level values whose text is remembered are
 * spliced in instead of being serialized again.
 */
export function stringifyJsonObject(object: JsonObject): string {
  let copy: JsonObject | undefined;
  const parts: Array<{ marker: string; text: string }> = [];
  for (const key of Object.keys(object)) {
    const text = knownJsonText(object[key]);
    if (text === undefined) continue;
    copy ??= { ...object };
    const marker = `${MARKER}${parts.length}`;
    copy[key] = marker;
    parts.push({ marker: JSON.stringify(marker), text });
  }
  if (!copy) return JSON.stringify(object);
  let out = JSON.stringify(copy);
  for (const { marker, text } of parts) {
    const at = out.indexOf(marker);
    // Cannot happen (each marker is a top-level value of the copy); never splice blindly.
    if (at < 0) return JSON.stringify(object);
    out = out.slice(0, at) + text + out.slice(at + marker.length);
  }
  return out;
}
