import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUtf8IfValid as decodeInBrowser } from './utf8.browser.ts';
import { decodeUtf8IfValid as decodeOnNode } from './utf8.node.ts';
import { decodeUtf8Strictly, firstInvalidUtf8Offset, invalidUtf8Message } from './utf8-bytes.ts';

const bytes = (...values: number[]) => new Uint8Array(values);
const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const decodesFatally = (input: Uint8Array) => {
  try {
    fatal.decode(input);
    return true;
  } catch {
    return false;
  }
};

describe('decodeUtf8Strictly', () => {
  it('decodes valid UTF-8 of every length, a BOM kept as sent', () => {
    const text = '\ufeff{"a":"é€😀"}';
    expect(decodeUtf8Strictly(new TextEncoder().encode(text))).toEqual({ ok: true, text });
    expect(decodeUtf8Strictly(bytes())).toEqual({ ok: true, text: '' });
  });

  it.each([
    ['a lone continuation byte', [0x61, 0x80, 0x62], 1],
    ['a truncated two-byte sequence', [0x61, 0x62, 0xc3], 2],
    ['a truncated three-byte sequence', [0x22, 0xe2, 0x82, 0x22], 1],
    ['a truncated four-byte sequence', [0xf0, 0x9f, 0x98], 0],
    ['an overlong slash (C0 AF)', [0x2f, 0xc0, 0xaf], 1],
    ['an overlong three-byte NUL (E0 80 80)', [0x61, 0xe0, 0x80, 0x80], 1],
    ['an overlong four-byte sequence (F0 80 80 AF)', [0xf0, 0x80, 0x80, 0xaf], 0],
    ['an encoded high surrogate (ED A0 80)', [0x61, 0x62, 0xed, 0xa0, 0x80], 2],
    ['an encoded low surrogate (ED BF BF)', [0xed, 0xbf, 0xbf], 0],
    ['a code point past U+10FFFF (F4 90 80 80)', [0xf4, 0x90, 0x80, 0x80], 0],
    ['a five-byte lead (F8)', [0x7b, 0xf8, 0x88, 0x80, 0x80, 0x80], 1],
    ['FF', [0xff], 0],
  ])('refuses %s, naming the offset', (_kind, input, offset) => {
    const decoding = decodeUtf8Strictly(bytes(...input));
    expect(decoding).toEqual({ ok: false, offset });
    expect(decodesFatally(bytes(...input))).toBe(false);
  });

  it('agrees with a fatal TextDecoder, and both builds agree, on arbitrary bytes', () => {
    // Mostly bytes near the edges of the ranges that matter, so ill-formed sequences are common.
    const edgy = fc.constantFrom(
      0x00,
      0x7f,
      0x80,
      0x8f,
      0x90,
      0x9f,
      0xa0,
      0xbf,
      0xc0,
      0xc1,
      0xc2,
      0xdf,
      0xe0,
      0xed,
      0xef,
      0xf0,
      0xf4,
      0xf5,
      0xff,
    );
    const arbitrary = fc.array(fc.oneof(edgy, fc.integer({ min: 0, max: 255 })), {
      maxLength: 12,
    });
    fc.assert(
      fc.property(arbitrary, (values) => {
        const input = bytes(...values);
        const valid = decodesFatally(input);
        const offset = firstInvalidUtf8Offset(input);
        expect(offset === undefined).toBe(valid);
        expect(decodeOnNode(input)).toEqual(decodeInBrowser(input));
        if (offset !== undefined) expect(decodesFatally(input.subarray(0, offset))).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('reads a view into a larger buffer by its own bounds', () => {
    const backing = new TextEncoder().encode('xx"ok"yy');
    expect(decodeUtf8Strictly(backing.subarray(2, 6))).toEqual({ ok: true, text: '"ok"' });
  });

  it('says where in the message', () => {
    expect(invalidUtf8Message(17)).toBe('request body is not valid UTF-8 at byte 17');
  });
});
