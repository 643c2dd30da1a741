import type { JsonValue } from '@toolgate/core';

/**
 * A HostedTool's `redact` paths applied to the endpoint's JSON answer before the model sees it
 * (docs/hosted-tool-endpoints.md): dotted object keys (`debug.token`), array indices as segments
 * (`items.0.secret`, or `items[0].secret`), and `*` for every key of an object or every element of
 * an array (`items.*.secret`, `items[*].secret`). A path that names nothing is no error (answers
 * vary); a key that itself contains a dot cannot be named.
 */

export const REDACTED = '[REDACTED]';

/** Concrete paths listed at most (a wildcard over a long array would list every element). */
export const MAX_REDACTED_PATHS = 100;

/** `items[0].token` → `['items', '0', 'token']`. */
export function pathSegments(path: string): string[] {
  return path
    .replace(/\[([^\]]*)\]/g, '.$1')
    .split('.')
    .filter((segment) => segment !== '');
}

export interface Redaction {
  value: JsonValue;
  /** Concrete dotted paths replaced (`items.0.token`), in order, at most {@link MAX_REDACTED_PATHS}. */
  paths: string[];
}

/** A copy of `value` with every matched path replaced by `[REDACTED]`; `value` is not changed. */
export function redactPaths(value: JsonValue, paths: readonly string[]): Redaction {
  const found = new Set<string>();
  let out = value;
  for (const path of paths) {
    const segments = pathSegments(path);
    if (segments.length === 0) continue;
    out = redactAt(out, segments, 0, [], found);
  }
  return { value: out, paths: [...found].slice(0, MAX_REDACTED_PATHS) };
}

function redactAt(
  node: JsonValue,
  segments: string[],
  depth: number,
  trail: string[],
  found: Set<string>,
): JsonValue {
  const segment = segments[depth] as string;
  const last = depth === segments.length - 1;
  const step = (child: JsonValue, key: string): JsonValue => {
    const at = [...trail, key];
    if (last) {
      found.add(at.join('.'));
      return REDACTED;
    }
    return redactAt(child, segments, depth + 1, at, found);
  };
  if (Array.isArray(node)) {
    if (segment === '*') return node.map((child, i) => step(child, String(i)));
    if (!/^\d+$/.test(segment)) return node;
    const index = Number(segment);
    if (index >= node.length) return node;
    const copy = node.slice();
    copy[index] = step(node[index] as JsonValue, segment);
    return copy;
  }
  if (node === null || typeof node !== 'object') return node;
  if (segment === '*') {
    const copy: Record<string, JsonValue> = {};
    for (const [key, child] of Object.entries(node)) copy[key] = step(child, key);
    return copy;
  }
  if (!Object.hasOwn(node, segment)) return node;
  return { ...node, [segment]: step(node[segment] as JsonValue, segment) };
}
