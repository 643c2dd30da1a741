/**
 * `value` with each object's keys in the order `written` lists them: the keys `written` has
 * first, in its order, then the ones it lacks (defaults a schema filled in) in `value`'s order.
 * Objects are matched by key and arrays element by element, recursively. Only the order changes,
 * never a value, so the canonical JSON (and hash) is the same.
 *
 * Why: a schema's parse returns its keys in the schema's order, and `jsonb` stores them in its
 * own, but a person reading their document back (the policy editor after Apply) expects the
 * order they wrote it in.
 */
export function inKeyOrderOf<T>(value: T, written: unknown): T {
  return reorder(value, written) as T;
}

function reorder(value: unknown, written: unknown): unknown {
  if (Array.isArray(value)) {
    const template = Array.isArray(written) ? written : [];
    return value.map((element, index) => reorder(element, template[index]));
  }
  if (!isPlainObject(value)) return value;
  const template = isPlainObject(written) ? written : {};
  const keys = [
    ...Object.keys(template).filter((key) => Object.hasOwn(value, key)),
    ...Object.keys(value).filter((key) => !Object.hasOwn(template, key)),
  ];
  // fromEntries defines own properties, so a "__proto__" key stays an ordinary key.
  return Object.fromEntries(
    keys.map((key) => [
      key,
      reorder((value as Record<string, unknown>)[key], (template as Record<string, unknown>)[key]),
    ]),
  );
}

function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
