import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { BadRequestError } from '../errors.ts';
import { CanonicalJsonError, canonicalize } from './canonical-json.ts';
import { shuffledCopy } from './shuffled-copy.ts';

/** The IEEE-754 double whose bit pattern is `hex` (16 hex digits). */
function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

/** Reference oracle: deep copy with sorted keys, then native JSON.stringify. */
function sortedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    return Object.fromEntries(
      keys.map((k) => [k, sortedCopy((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

function failure(value: unknown): CanonicalJsonError {
  try {
    canonicalize(value);
  } catch (error) {
    if (error instanceof CanonicalJsonError) return error;
    throw error;
  }
  throw new Error('expected canonicalize to throw');
}

describe('canonicalize: RFC 8785 §3.2.2 numbers', () => {
  // Source text → canonical text; parsed with JSON.parse so the spelling in the input is honoured.
  it.each([
    ['1E30', '1e+30'],
    ['1e+30', '1e+30'],
    ['4.50', '4.5'],
    ['2e-3', '0.002'],
    ['0.000001', '0.000001'],
    ['1e-7', '1e-7'],
    ['0.000000000000000000000000001', '1e-27'],
    ['333333333.33333329', '333333333.3333333'],
    ['-0', '0'],
    ['-0.0', '0'],
    ['0.0', '0'],
    ['100', '100'],
    ['1e21', '1e+21'],
    ['1e20', '100000000000000000000'],
    ['123456789012345678901234567890', '1.2345678901234568e+29'],
    ['-1.5e-10', '-1.5e-10'],
  ])('%s → %s', (source, expected) => {
    expect(canonicalize(JSON.parse(source))).toBe(expected);
  });

  // RFC 8785 Appendix B: IEEE-754 bit pattern → canonical text.
  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('Appendix B %s → %s', (bits, expected) => {
    expect(canonicalize(fromBits(bits))).toBe(expected);
    expect(canonicalize([fromBits(bits)])).toBe(`[${expected}]`);
  });

  it.each([
    ['7fffffffffffffff', 'NaN'],
    ['7ff0000000000000', 'Infinity'],
    ['fff0000000000000', '-Infinity'],
  ])('Appendix B %s (%s) is rejected', (bits, name) => {
    const error = failure({ x: fromBits(bits) });
    expect(error.path).toBe('x');
    expect(error.message).toContain(name);
  });
});

describe('canonicalize: RFC 8785 §3.2.3 sorting', () => {
  it('sorts keys by UTF-16 code units, not code points', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    expect(canonicalize(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control",' +
        '"\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign",' +
        '"\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it.each([
    [{ b: 1, a: 2 }, '{"a":2,"b":1}'],
    [{ a: 1, b: 2 }, '{"a":1,"b":2}'],
    [{ B: 1, a: 2, A: 3, _: 4 }, '{"A":3,"B":1,"_":4,"a":2}'],
    // Integer-like keys come first in JS property order, but sort as strings.
    [{ b: 0, 10: 1, 9: 2, 1: 3, a: 0 }, '{"1":3,"10":1,"9":2,"a":0,"b":0}'],
    [{ '': 1, ' ': 2, aa: 3, a: 4 }, '{"":1," ":2,"a":4,"aa":3}'],
    [
      { z: { y: [{ d: 1, c: 2 }, { b: { f: 1, e: 2 } }], x: null }, a: {} },
      '{"a":{},"z":{"x":null,"y":[{"c":2,"d":1},{"b":{"e":2,"f":1}}]}}',
    ],
  ])('%j → %s', (input, expected) => {
    expect(canonicalize(input)).toBe(expected);
  });

  it('sorts large objects (past the insertion-sort cutoff)', () => {
    const keys = Array.from({ length: 200 }, (_, i) => `k${(i * 7919) % 200}`);
    const input = Object.fromEntries(keys.map((k) => [k, k.length]));
    const expected = `{${[...keys]
      .sort()
      .map((k) => `"${k}":${k.length}`)
      .join(',')}}`;
    expect(canonicalize(input)).toBe(expected);
  });
});

describe('canonicalize: RFC 8785 §3.2.4 example', () => {
  it('canonicalizes the numbers/string/literals object', () => {
    const source = String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`;
    expect(canonicalize(JSON.parse(source))).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
  });
});

describe('canonicalize: strings', () => {
  it.each([
    ['', '""'],
    ['plain ascii', '"plain ascii"'],
    ['\b\t\n\f\r', String.raw`"\b\t\n\f\r"`],
    ['\u0000\u0001\u000b\u000e\u001f', String.raw`"\u0000\u0001\u000b\u000e\u001f"`],
    ['quote " backslash \\ slash /', String.raw`"quote \" backslash \\ slash /"`],
    ['\u007f\u0080\u009f', '"\u007f\u0080\u009f"'],
    ['\u2028\u2029', '"\u2028\u2029"'],
    ['€ ö Größe', '"€ ö Größe"'],
    ['😀 \ud834\udd1e \u{10ffff}', '"😀 \ud834\udd1e \u{10ffff}"'],
    ['emoji then control 😀\n', String.raw`"emoji then control 😀\n"`],
    ['x'.repeat(32), `"${'x'.repeat(32)}"`],
    ['x'.repeat(33), `"${'x'.repeat(33)}"`],
    [`${'y'.repeat(40)}\t`, `"${'y'.repeat(40)}\\t"`],
  ])('%j → %s', (input, expected) => {
    expect(canonicalize(input)).toBe(expected);
    // Same again (memoized short strings) and as a key.
    expect(canonicalize(input)).toBe(expected);
    expect(canonicalize({ [input]: input })).toBe(`{${expected}:${expected}}`);
  });
});

describe('canonicalize: other values', () => {
  it.each([
    [null, 'null'],
    [true, 'true'],
    [false, 'false'],
    [[], '[]'],
    [{}, '{}'],
    [[[], {}, [{}]], '[[],{},[{}]]'],
    [[1, 'a', null, true, { b: false }], '[1,"a",null,true,{"b":false}]'],
  ])('%j → %s', (input, expected) => {
    expect(canonicalize(input)).toBe(expected);
  });

  it('skips undefined object properties, like JSON.stringify', () => {
    expect(canonicalize({ a: undefined, b: 1, c: undefined })).toBe('{"b":1}');
    expect(canonicalize({ a: undefined })).toBe('{}');
  });

  it('calls toJSON like JSON.stringify (with the key, once)', () => {
    const date = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6));
    expect(canonicalize({ at: date })).toBe('{"at":"2024-01-02T03:04:05.006Z"}');
    const keyEcho = { toJSON: (key: string) => `key=${key}` };
    expect(canonicalize({ k: keyEcho, list: [keyEcho, keyEcho] })).toBe(
      '{"k":"key=k","list":["key=0","key=1"]}',
    );
    expect(canonicalize(keyEcho)).toBe('"key="');
    const inner = { toJSON: () => 'never called' };
    expect(canonicalize({ toJSON: () => ({ z: 1, a: inner }) })).toBe('{"a":"never called","z":1}');
    expect(canonicalize({ a: { toJSON: () => undefined }, b: 2 })).toBe('{"b":2}');
  });

  it('unwraps boxed primitives and serializes other objects by their own enumerable keys', () => {
    expect(canonicalize([Object(1.5), Object('s'), Object(false)])).toBe('[1.5,"s",false]');
    const nullProto = Object.assign(Object.create(null) as object, { b: 1, a: 2 });
    expect(canonicalize(nullProto)).toBe('{"a":2,"b":1}');
    class Point {
      constructor(
        readonly y: number,
        readonly x: number,
      ) {}
      get norm() {
        return Math.hypot(this.x, this.y);
      }
    }
    expect(canonicalize(new Point(2, 1))).toBe('{"x":1,"y":2}');
    expect(canonicalize({ [Symbol('s')]: 1, a: 1 })).toBe('{"a":1}');
    expect(canonicalize(new Map([['a', 1]]))).toBe('{}');
  });

  it('accepts the same object at several places (a DAG is not a cycle)', () => {
    const shared = { b: [1], a: 'x' };
    expect(canonicalize({ one: shared, two: [shared, shared] })).toBe(
      '{"one":{"a":"x","b":[1]},"two":[{"a":"x","b":[1]},{"a":"x","b":[1]}]}',
    );
  });
});

describe('canonicalize: rejected values', () => {
  const cyclic: Record<string, unknown> = { name: 'root', child: {} };
  (cyclic.child as Record<string, unknown>).parent = cyclic;
  const cyclicArray: unknown[] = [1];
  cyclicArray.push({ again: cyclicArray });
  const tools = [{}, {}, {}, { type: 'function', function: { name: 'f', parameters: Number.NaN } }];
  const holey: number[] = [];
  holey[0] = 1;
  holey[2] = 3;

  it.each([
    ['NaN at the top', Number.NaN, '', 'NaN is not a JSON number'],
    ['Infinity', { a: Number.POSITIVE_INFINITY }, 'a', 'Infinity is not a JSON number'],
    ['-Infinity', [0, Number.NEGATIVE_INFINITY], '[1]', '-Infinity is not a JSON number'],
    ['NaN deep inside', { tools }, 'tools[3].function.parameters', 'NaN'],
    ['a lone high surrogate', { a: ['ok', 'x\ud800'] }, 'a[1]', 'string contains a lone surrogate'],
    ['a lone low surrogate', { a: '\udc00x' }, 'a', 'lone surrogate'],
    ['surrogates in the wrong order', ['\ude00\ud83d'], '[0]', 'lone surrogate'],
    ['a lone surrogate in a key', { o: { '\ud800': 1 } }, 'o["\\ud800"]', 'key contains'],
    ['a long string with a lone surrogate', `${'a'.repeat(100)}\udbff`, '', 'lone surrogate'],
    ['BigInt', { n: 1n }, 'n', 'BigInt'],
    ['a boxed BigInt', [Object(1n)], '[0]', 'BigInt'],
    ['a function property', { f: () => 1 }, 'f', 'a function has no JSON representation'],
    ['a symbol property', { s: Symbol('s') }, 's', 'a symbol has no JSON representation'],
    ['a function in an array', [() => 1], '[0]', 'a function'],
    ['undefined in an array', [1, undefined], '[1]', 'undefined is not allowed in an array'],
    ['a hole in an array', holey, '[1]', 'undefined is not allowed in an array'],
    ['toJSON giving undefined in an array', [{ toJSON: () => undefined }], '[0]', 'undefined'],
    ['undefined at the top', undefined, '', 'undefined has no JSON representation'],
    ['a cyclic object', cyclic, 'child.parent', 'cyclic structure'],
    ['a cyclic array', cyclicArray, '[1].again', 'cyclic structure'],
    ['a non-identifier key', { 'a.b': { 'c d': [Number.NaN] } }, '["a.b"]["c d"][0]', 'NaN'],
  ])('rejects %s', (_name, input, path, message) => {
    const error = failure(input);
    expect(error).toBeInstanceOf(CanonicalJsonError);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.name).toBe('CanonicalJsonError');
    expect(error.path).toBe(path);
    expect(error.message).toContain(message);
    expect(error.message).toContain(path === '' ? 'the top-level value' : path);
  });

  it('lets errors thrown by toJSON propagate unchanged', () => {
    const boom = new Error('boom');
    expect(() =>
      canonicalize({
        a: {
          toJSON() {
            throw boom;
          },
        },
      }),
    ).toThrow(boom);
  });

  it('detects lone surrogates with the regex fallback when isWellFormed is missing', async () => {
    const proto = String.prototype as { isWellFormed?: unknown };
    const original = proto.isWellFormed;
    delete proto.isWellFormed;
    try {
      vi.resetModules();
      const fallback = await import('./canonical-json.ts');
      expect(fallback.canonicalize).not.toBe(canonicalize); // a fresh module evaluation
      expect(fallback.canonicalize(['😀', 'a\ud83d\ude00b', 'ö'])).toBe('["😀","a😀b","ö"]');
      for (const bad of ['\ud800', 'a\udc00', '\ude00\ud83d', '\ud83d\ud83d\ude00x', 'x\ud83d']) {
        expect(() => fallback.canonicalize({ s: bad })).toThrow(fallback.CanonicalJsonError);
        expect(() => fallback.canonicalize({ [bad]: 1 })).toThrow(/key contains a lone surrogate/);
      }
    } finally {
      proto.isWellFormed = original;
      vi.resetModules();
    }
  });
});

describe('canonicalize: properties', () => {
  const json = fc.jsonValue({ stringUnit: 'binary' });

  it('matches the sort-then-JSON.stringify oracle', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(canonicalize(value)).toBe(JSON.stringify(sortedCopy(value)));
      }),
    );
  });

  it('is idempotent through JSON.parse', () => {
    fc.assert(
      fc.property(json, (value) => {
        const once = canonicalize(value);
        expect(canonicalize(JSON.parse(once))).toBe(once);
      }),
    );
  });

  it('round-trips JSON values (with -0 read back as 0)', () => {
    fc.assert(
      fc.property(json, (value) => {
        // JSON has no -0: compare against the value as JSON.stringify sees it.
        expect(JSON.parse(canonicalize(value))).toStrictEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('does not depend on key order', () => {
    fc.assert(
      fc.property(json, fc.integer(), (value, seed) => {
        expect(canonicalize(shuffledCopy(value, seed))).toBe(canonicalize(value));
      }),
    );
  });

  it('accepts exactly the well-formed strings, serialized as JSON.stringify does', () => {
    const anyCodeUnit = fc.nat(0xffff).map((c) => String.fromCharCode(c));
    const surrogateHeavy = fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '😀', 'a', '"');
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(anyCodeUnit, surrogateHeavy) }), (s) => {
        if ((s as unknown as { isWellFormed(): boolean }).isWellFormed()) {
          expect(canonicalize(s)).toBe(JSON.stringify(s));
          expect(canonicalize({ [s]: 0 })).toBe(`{${JSON.stringify(s)}:0}`);
        } else {
          expect(() => canonicalize(s)).toThrow(CanonicalJsonError);
          expect(() => canonicalize({ [s]: 0 })).toThrow(CanonicalJsonError);
        }
      }),
    );
  });

  it('serializes every finite double as Number.prototype.toString, and parses back to it', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        const text = canonicalize(n);
        expect(text).toBe(Object.is(n, -0) ? '0' : String(n));
        expect(JSON.parse(text)).toBe(n === 0 ? 0 : n);
      }),
    );
  });
});

describe('canonicalize and frozen values', () => {
  it('gives the same text for a deeply frozen value, however often it is asked', () => {
    const value = Object.freeze({
      b: Object.freeze([1, Object.freeze({ d: 'x', c: null })]),
      a: 2,
    });
    const first = canonicalize(value);
    expect(first).toBe('{"a":2,"b":[1,{"c":null,"d":"x"}]}');
    expect(canonicalize({ outer: value })).toBe(`{"outer":${first}}`);
    expect(canonicalize(value)).toBe(first);
  });

  it('never serves stale text for a frozen object with mutable children', () => {
    const child = { n: 1 };
    const shallow = Object.freeze({ child });
    expect(canonicalize(shallow)).toBe('{"child":{"n":1}}');
    child.n = 2;
    expect(canonicalize(shallow)).toBe('{"child":{"n":2}}');
  });
});
