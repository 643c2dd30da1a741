/** Freezes a value and everything it reaches (maps' keys and values too). */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (value instanceof Map) {
    for (const [k, v] of value) {
      deepFreeze(k);
      deepFreeze(v);
    }
  }
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
  return value;
}

/**
 * Frozen all the way down, and plain data (a `toJSON` could answer differently each time): a
 * value whose serialization can be computed once and reused for as long as the object lives.
 */
export function isDeeplyFrozen(value: object): boolean {
  if (!Object.isFrozen(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return false;
  }
  for (const child of Object.values(value)) {
    if (typeof child === 'object' && child !== null && !isDeeplyFrozen(child)) return false;
  }
  return true;
}
