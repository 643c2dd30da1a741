import { isJsonObject, type JsonObject, type JsonValue, setJsonKey } from '../json/json-value.ts';

/** Argument keys whose values are never hashed into a receipt, whatever the policy says. */
export const DEFAULT_REDACTED_KEYS: ReadonlyArray<string> = [
  'api_key',
  'apiKey',
  'authorization',
  'Authorization',
  'password',
  'secret',
  'token',
  'access_token',
  'refresh_token',
];

export const REDACTED = '[REDACTED]';

/**
 * Replaces the values at `paths` with `[REDACTED]`. A path without a dot names a key at any
 * depth (`token`); a dotted path is anchored at the root (`auth.password`). Returns the paths
 * actually redacted, in document order, so a receipt can say what it left out.
 */
export function redactValue(
  value: JsonValue,
  paths: ReadonlyArray<string>,
): { value: JsonValue; redacted: string[] } {
  const anywhere = new Set(paths.filter((p) => !p.includes('.')));
  const anchored = paths.filter((p) => p.includes('.'));
  const redacted: string[] = [];
  const walk = (node: JsonValue, path: string): JsonValue => {
    if (Array.isArray(node)) {
      let changed = false;
      const out = node.map((item, i) => {
        const next = walk(item, `${path}[${i}]`);
        if (next !== item) changed = true;
        return next;
      });
      return changed ? out : node;
    }
    if (!isJsonObject(node)) return node;
    let out: JsonObject | undefined;
    for (const key of Object.keys(node)) {
      const child = path === '' ? key : `${path}.${key}`;
      const original = node[key] as JsonValue;
      let next: JsonValue;
      if (anywhere.has(key) || anchored.includes(child)) {
        next = REDACTED;
        redacted.push(child);
      } else next = walk(original, child);
      if (next !== original) {
        out ??= { ...node };
        setJsonKey(out, key, next);
      }
    }
    return out ?? node;
  };
  return { value: walk(value, ''), redacted };
}
