import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalize } from './canonical-json.ts';
import { inKeyOrderOf } from './key-order.ts';
import { shuffledCopy } from './shuffled-copy.ts';

/** Every object's keys, depth first: what an order-sensitive reader (YAML, JSON text) sees. */
function keyPaths(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keyPaths);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [key, ...keyPaths(child)]);
}

describe('inKeyOrderOf', () => {
  it.each([
    ['written order wins', { a: 1, b: 2, c: 3 }, { c: 0, a: 0, b: 0 }, '{"c":3,"a":1,"b":2}'],
    ['keys the writer left out follow', { a: 1, b: 2, c: 3 }, { b: 0 }, '{"b":2,"a":1,"c":3}'],
    ['keys only the writer had are not added', { a: 1 }, { z: 0, a: 0 }, '{"a":1}'],
    [
      'nested objects and arrays element by element',
      { spec: { rules: [{ id: 'x', action: 'hide', match: { name: 'n' } }], mode: 'patch' } },
      { spec: { mode: 'observe', rules: [{ match: {}, action: 'deny', id: 'y' }] } },
      '{"spec":{"mode":"patch","rules":[{"match":{"name":"n"},"action":"hide","id":"x"}]}}',
    ],
    [
      'no template keeps the value as it is',
      { b: 1, a: [{ d: 1, c: 2 }] },
      undefined,
      '{"b":1,"a":[{"d":1,"c":2}]}',
    ],
    ['a template of another shape is ignored', { b: 1, a: 2 }, ['a', 'b'], '{"b":1,"a":2}'],
    ['scalars pass through', 'text', { a: 1 }, '"text"'],
  ])('%s', (_name, value, written, expected) => {
    expect(JSON.stringify(inKeyOrderOf(value, written))).toBe(expected);
  });

  it('keeps a "__proto__" key an ordinary key', () => {
    const value = JSON.parse('{"a":1,"__proto__":{"b":2}}') as object;
    const written = JSON.parse('{"__proto__":{},"a":0}') as object;
    const ordered = inKeyOrderOf(value, written);
    expect(JSON.stringify(ordered)).toBe('{"__proto__":{"b":2},"a":1}');
    expect(Object.getPrototypeOf(ordered)).toBe(Object.prototype);
  });

  it('changes only the order: same canonical JSON, and the written order for shared keys', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer(), (json, seed) => {
        const written = shuffledCopy(json, seed);
        const ordered = inKeyOrderOf(json, written);
        expect(canonicalize(ordered)).toBe(canonicalize(json));
        expect(keyPaths(ordered)).toEqual(keyPaths(written));
      }),
    );
  });
});
