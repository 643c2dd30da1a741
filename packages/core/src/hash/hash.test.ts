import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CanonicalJsonError } from '../json/canonical-json.ts';
import { hashCanonical, hashString } from './hash.ts';
import { sha256Hex as sha256Browser } from './sha256.browser.ts';
import { sha256Hex as sha256Node } from './sha256.node.ts';

const implementations = [
  ['node', sha256Node],
  ['browser', sha256Browser],
] as const;

// FIPS 180-4 / NIST examples, plus multi-byte UTF-8 (checked against coreutils sha256sum).
const vectors: [string, string, string][] = [
  ['empty string', '', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
  ['"abc"', 'abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  [
    '448-bit message',
    'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
    '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
  ],
  [
    '896-bit message',
    'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu',
    'cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1',
  ],
  [
    'multi-byte UTF-8 "€😀"',
    '€😀',
    'aa6ac38b88868c15ec32bf6cca0dda3ffa2595bdf3e1ae98c328b799f889b9ac',
  ],
  [
    'one million "a"',
    'a'.repeat(1_000_000),
    'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
  ],
  // A lone surrogate is encoded as U+FFFD (EF BF BD) by both TextEncoder and Node.
  ['lone surrogate', '\ud800', '83d544ccc223c057d2bf80d3f2a32982c32c3c0db8e2674820da5064783fb097'],
];

describe.each(implementations)('sha256Hex (%s)', (_name, sha256Hex) => {
  it.each(vectors)('hashes the %s', (_label, input, expected) => {
    expect(sha256Hex(input)).toBe(expected);
  });
});

describe('sha256Hex: browser build equals node build', () => {
  it('agrees on every length around the 64-byte block and padding boundaries', () => {
    for (let length = 0; length <= 200; length++) {
      const input = 'x'.repeat(length);
      expect(sha256Browser(input)).toBe(sha256Node(input));
    }
    // Multi-byte characters move the byte length across the boundaries differently.
    for (let length = 0; length <= 70; length++) {
      const input = 'é'.repeat(length);
      expect(sha256Browser(input)).toBe(sha256Node(input));
    }
  });

  it('agrees on random Unicode strings', () => {
    // Any code point but the surrogate range; same as `unit: 'binary'`, minus its ~1 s warm-up.
    const codePoint = fc
      .integer({ min: 0, max: 0x10ffff - 0x800 })
      .map((c) => String.fromCodePoint(c < 0xd800 ? c : c + 0x800));
    fc.assert(
      fc.property(fc.string({ unit: codePoint, maxLength: 200 }), (s) => {
        expect(sha256Browser(s)).toBe(sha256Node(s));
      }),
    );
  });

  it('agrees on random UTF-16 code unit sequences, lone surrogates included', () => {
    const codeUnit = fc.nat(0xffff).map((c) => String.fromCharCode(c));
    fc.assert(
      fc.property(fc.string({ unit: codeUnit }), (s) => {
        expect(sha256Browser(s)).toBe(sha256Node(s));
      }),
    );
  });
});

describe('hashString', () => {
  it('is "sha256:" + the hex digest of the UTF-8 bytes', () => {
    expect(hashString('abc')).toBe(
      'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(hashString('')).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe('hashCanonical', () => {
  const tool = {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Get the current weather for a city.',
      parameters: {
        type: 'object',
        properties: {
          city: { type: 'string', description: 'City name, e.g. Zürich' },
          unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        },
        required: ['city'],
        additionalProperties: false,
      },
      strict: true,
    },
  };

  it('hashes a tool declaration to a golden value', () => {
    // Canonical text hashed independently with `printf '%s' … | sha256sum`.
    expect(hashString(JSON.stringify(tool))).not.toBe(hashCanonical(tool));
    expect(hashCanonical(tool)).toBe(
      'sha256:6cd47916e59343f4c30ff521c9fcfc4379236003602357428865a1c7a38666ae',
    );
    expect(hashCanonical(tool)).toBe(
      hashString(
        '{"function":{"description":"Get the current weather for a city.","name":"get_weather",' +
          '"parameters":{"additionalProperties":false,"properties":{"city":{"description":' +
          '"City name, e.g. Zürich","type":"string"},"unit":{"enum":["celsius","fahrenheit"],' +
          '"type":"string"}},"required":["city"],"type":"object"},"strict":true},"type":"function"}',
      ),
    );
  });

  it('ignores key order and number spelling', () => {
    const reordered = JSON.parse(
      '{"function":{"strict":true,"parameters":{"additionalProperties":false,"required":["city"],' +
        '"properties":{"unit":{"enum":["celsius","fahrenheit"],"type":"string"},' +
        '"city":{"type":"string","description":"City name, e.g. Z\\u00fcrich"}},"type":"object"},' +
        '"description":"Get the current weather for a city.","name":"get_weather"},"type":"function"}',
    );
    expect(hashCanonical(reordered)).toBe(hashCanonical(tool));
    expect(hashCanonical(JSON.parse('{"b":1.50,"a":-0}'))).toBe(hashCanonical({ a: 0, b: 1.5 }));
  });

  it('ignores key order of random JSON values', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 8 }), (value) => {
        const reversed = Object.fromEntries(Object.entries(value).reverse());
        expect(hashCanonical(reversed)).toBe(hashCanonical(value));
      }),
    );
  });

  it('tells different values apart', () => {
    expect(hashCanonical({ a: 1 })).not.toBe(hashCanonical({ a: '1' }));
    expect(hashCanonical([1, 2])).not.toBe(hashCanonical([2, 1]));
  });

  it('propagates canonicalization errors', () => {
    expect(() => hashCanonical({ tools: [{ x: Number.NaN }] })).toThrow(CanonicalJsonError);
  });
});
