import { canonicalize } from './canonical-json.ts';
import { isJsonObject, type JsonValue } from './json-value.ts';

/** One difference between two JSON documents, at an RFC 6901 JSON Pointer. */
export interface JsonChange {
  op: 'add' | 'remove' | 'replace';
  path: string;
  from?: JsonValue;
  value?: JsonValue;
}

/**
 * The changes that turn `before` into `after`, JSON-Patch style (RFC 6902 ops and paths, plus the
 * old value in `from` so a reader sees both sides). Objects are compared key by key (in sorted
 * order, so the result is deterministic), arrays position by position.
 */
export function diffJson(before: JsonValue, after: JsonValue, path = ''): JsonChange[] {
  if (isJsonObject(before) && isJsonObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => {
      const at = `${path}/${escapePointer(key)}`;
      if (!(key in after)) return [{ op: 'remove', path: at, from: before[key] as JsonValue }];
      if (!(key in before)) return [{ op: 'add', path: at, value: after[key] as JsonValue }];
      return diffJson(before[key] as JsonValue, after[key] as JsonValue, at);
    });
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const changes: JsonChange[] = [];
    const shared = Math.min(before.length, after.length);
    for (let i = 0; i < shared; i++) {
      changes.push(...diffJson(before[i] as JsonValue, after[i] as JsonValue, `${path}/${i}`));
    }
    for (let i = shared; i < after.length; i++) {
      changes.push({ op: 'add', path: `${path}/${i}`, value: after[i] as JsonValue });
    }
    // Removals from the end backwards, so applying them in order keeps indices valid.
    for (let i = before.length - 1; i >= shared; i--) {
      changes.push({ op: 'remove', path: `${path}/${i}`, from: before[i] as JsonValue });
    }
    return changes;
  }
  if (canonicalize(before) === canonicalize(after)) return [];
  return [{ op: 'replace', path: path === '' ? '' : path, from: before, value: after }];
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
