import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  boundedText,
  illFormedPath,
  illFormedPathInJson,
  isWellFormedString,
  jsonTextMayHoldLoneSurrogate,
  nulPath,
  toWellFormedString,
} from './well-formed-text.ts';

describe('well-formed text', () => {
  it.each([
    ['plain', true],
    ['emoji \u{1f600}', true],
    ['lone high \ud800', false],
    ['lone low \udc00 x', false],
    ['reversed \udc00\ud800', false],
  ])('isWellFormedString(%j) is %s', (s, expected) => {
    expect(isWellFormedString(s)).toBe(expected);
  });

  it('names the path of the first lone surrogate, in values and keys', () => {
    expect(illFormedPath({ model: 'gpt\ud800' })).toBe('model');
    expect(illFormedPath({ messages: [{ content: 'ok' }, { content: 'x\udfff' }] })).toBe(
      'messages[1].content',
    );
    expect(illFormedPath({ metadata: { annotations: { 'k\ud800': 'v' } } })).toBe(
      'metadata.annotations.(key)',
    );
    expect(illFormedPath({ a: [1, null, true, { b: 'fine \u{1f600}' }] })).toBeUndefined();
  });

  it('names the path of the first U+0000, in values and keys, and nothing else', () => {
    expect(nulPath({ parameters: { properties: { q: { description: 'a\u0000b' } } } })).toBe(
      'parameters.properties.q.description',
    );
    expect(nulPath({ enum: ['ok', '\u0000'] })).toBe('enum[1]');
    expect(nulPath({ properties: { 'k\u0000': {} } })).toBe('properties.(key)');
    // A backslash and "u0000" as text is not U+0000; lone surrogates are another check's.
    expect(nulPath({ description: '\\u0000 \ud800', n: 0 })).toBeUndefined();
  });

  it('finds, from JSON text, exactly what a walk of the parse finds', () => {
    const text = JSON.stringify({ model: 'gpt' }).replace('gpt', 'gpt\\ud800');
    expect(jsonTextMayHoldLoneSurrogate(text)).toBe(true);
    expect(illFormedPathInJson(text, JSON.parse(text))).toBe('model');
    const escaped = '{"model":"\\\\ud800"}';
    expect(illFormedPathInJson(escaped, JSON.parse(escaped))).toBeUndefined();
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value) ?? 'null';
        const parsed = JSON.parse(text) as unknown;
        expect(illFormedPathInJson(text, parsed)).toBe(illFormedPath(parsed));
      }),
      { numRuns: 500 },
    );
  });
});

describe('bounded text', () => {
  it('cuts to the limit with an ellipsis, never inside a surrogate pair', () => {
    expect(boundedText('abcdef', 10)).toBe('abcdef');
    expect(boundedText('abcdef', 4)).toBe('abc…');
    const emoji = 'ab\u{1f600}cd';
    expect(boundedText(emoji, 4)).toBe('ab…');
    expect(isWellFormedString(boundedText(emoji, 4))).toBe(true);
  });

  it('replaces lone surrogates, and every result is well-formed and within the limit', () => {
    expect(toWellFormedString('x\ud800y\udc00')).toBe('x\ufffdy\ufffd');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 1, max: 40 }), (s, max) => {
        const out = boundedText(s, max);
        expect(out.length).toBeLessThanOrEqual(Math.max(max, 1));
        expect(isWellFormedString(out)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});
