import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { canonicalize } from './canonical-json.ts';
import { canonicalizeParsed, canonicalWithLastMember } from './canonical-order.ts';

/** What `f` returns, or the message it throws: the two functions must agree on both. */
function outcome(f: () => unknown): { value: unknown } | { error: string } {
  try {
    return { value: f() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const json = fc.jsonValue({ stringUnit: 'binary' });
/** Values as a gateway sends them: parsed from their canonical text, so in canonical order. */
const ordered = json
  .filter((value) =>
    Object.hasOwn(
      outcome(() => canonicalize(value)),
      'value',
    ),
  )
  .map((value) => JSON.parse(canonicalize(value)) as unknown);

describe('canonicalizeParsed', () => {
  it('is canonicalize, text and errors alike, for any JSON value in any key order', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(outcome(() => canonicalizeParsed(value))).toEqual(
          outcome(() => canonicalize(value)),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('writes a value in canonical order with JSON.stringify, without canonicalize', () => {
    fc.assert(
      fc.property(ordered, (value) => {
        const stringify = vi.spyOn(JSON, 'stringify');
        try {
          expect(canonicalizeParsed(value)).toBe(canonicalize(value));
          // The fast path's one call on the whole value, and none per string by canonicalize.
          expect(stringify.mock.calls[0]?.[0]).toBe(value);
        } finally {
          stringify.mockRestore();
        }
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ['integer-like keys, enumerated numerically but sorted as strings', { '10': 1, '9': 2 }],
    ['a lone surrogate in a value', { a: '\ud800' }],
    ['a lone surrogate in a key', { '\udc00': 1 }],
    ['a backslash followed by "ud800"', { a: '\\ud800' }],
    ['-0', { a: -0 }],
    ['NaN', { a: Number.NaN }],
    ['undefined in an array', [1, undefined]],
    // biome-ignore lint/suspicious/noSparseArray: a hole is the case
    ['a hole in an array', [1, , 3]],
    ['undefined as a member', { a: undefined, b: 1 }],
    ['a Date', { a: new Date(0) }],
    ['a toJSON member', { a: { toJSON: () => 'x' } }],
    ['a null-prototype object', Object.assign(Object.create(null), { a: 1 })],
    ['a boxed string', { a: new String('s') }],
    ['a BigInt', { a: 1n }],
    ['a function', { a: () => 1 }],
    ['control characters', { a: '\u0001\n"' }],
    ['U+0000', { a: '\u0000' }],
  ])('agrees with canonicalize on %s', (_name, value) => {
    expect(outcome(() => canonicalizeParsed(value))).toEqual(outcome(() => canonicalize(value)));
  });

  it('agrees on cycles and on values nested past its depth bound', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.b = cyclic;
    expect(outcome(() => canonicalizeParsed(cyclic))).toEqual(outcome(() => canonicalize(cyclic)));
    let deep: unknown = 1;
    for (let i = 0; i < 600; i++) deep = [deep];
    expect(canonicalizeParsed(deep)).toBe(canonicalize(deep));
  });

  it('ignores an enumerable key inherited from a polluted Object.prototype', () => {
    const value = { a: 1, b: { c: 2 } };
    Object.defineProperty(Object.prototype, 'zz', {
      value: 1,
      enumerable: true,
      configurable: true,
      writable: true,
    });
    try {
      expect(canonicalizeParsed(value)).toBe('{"a":1,"b":{"c":2}}');
    } finally {
      delete (Object.prototype as Record<string, unknown>).zz;
    }
  });
});

describe('canonicalWithLastMember', () => {
  /** An object in canonical order with `hash` appended last, as the gateway writes receipts. */
  const withHash = fc
    .tuple(fc.dictionary(fc.string({ unit: 'binary' }), json, { minKeys: 1 }), fc.string())
    .filter(([rest]) => !Object.hasOwn(rest, 'hash'))
    .filter(([rest]) =>
      Object.hasOwn(
        outcome(() => canonicalize(rest)),
        'value',
      ),
    )
    .map(([rest, hash]) => {
      const canonical = canonicalize(rest);
      return {
        rest,
        canonical,
        object: JSON.parse(`${canonical.slice(0, -1)},"hash":${JSON.stringify(hash)}}`) as object,
      };
    });

  it('gives the canonical text without the member, and the text with it appended', () => {
    fc.assert(
      fc.property(withHash, ({ canonical, object }) => {
        const result = canonicalWithLastMember(object, 'hash');
        expect(result).toEqual({ canonical, json: JSON.stringify(object) });
        expect(JSON.parse(result?.json ?? 'null')).toEqual(object);
      }),
      { numRuns: 1000 },
    );
  });

  it('declines (the caller takes the long way) whenever that would not be exact', () => {
    fc.assert(
      fc.property(json, fc.string(), (value, hash) => {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
        const object = { ...value, hash };
        const result = canonicalWithLastMember(object, 'hash');
        if (result === undefined) return;
        const { hash: _hash, ...rest } = object;
        expect(result.canonical).toBe(canonicalize(rest));
        expect(result.json).toBe(
          `${result.canonical.slice(0, -1)},"hash":${JSON.stringify(hash)}}`,
        );
      }),
      { numRuns: 2000 },
    );
    expect(canonicalWithLastMember({ b: 1, a: 2, hash: 'h' }, 'hash')).toBeUndefined();
    expect(canonicalWithLastMember({ hash: 'h', a: 1 }, 'hash')).toBeUndefined();
    expect(canonicalWithLastMember({ hash: 'h' }, 'hash')).toBeUndefined();
    expect(canonicalWithLastMember({ a: 1, hash: 2 }, 'hash')).toBeUndefined();
    expect(canonicalWithLastMember({ a: '\ud800', hash: 'h' }, 'hash')).toBeUndefined();
    expect(canonicalWithLastMember({ a: new Date(0), hash: 'h' }, 'hash')).toBeUndefined();
    expect(canonicalWithLastMember({ a: 1, hash: 'h' }, 'hash')).toEqual({
      canonical: '{"a":1}',
      json: '{"a":1,"hash":"h"}',
    });
  });
});
