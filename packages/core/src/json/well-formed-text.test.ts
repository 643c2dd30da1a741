import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  illFormedPath,
  illFormedPathInJson,
  isWellFormedString,
  jsonTextMayHoldLoneSurrogate,
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
