import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrayLiteral, columnLiteral, nestedLiteral } from './array-literal.ts';

// Quotes and backslashes are what the literals escape; the rest passes as it is.
const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ',', '{', '}', '"', '\\', 'é') });

describe('array literals', () => {
  it('quotes each element, escaping quotes and backslashes; null is NULL', () => {
    expect(arrayLiteral(['a', 'b "c"', 'd\\e', null])).toBe('{"a","b \\"c\\"","d\\\\e",NULL}');
    expect(arrayLiteral([])).toBe('{}');
  });

  it('columnLiteral is arrayLiteral of the mapped rows (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.option(text)), (values) => {
        expect(columnLiteral(values, (value) => value)).toBe(arrayLiteral(values));
      }),
    );
  });

  it('nestedLiteral is the array literal of each row’s array literal (property)', () => {
    expect(nestedLiteral([['a', 'b'], [], ['"']], (row) => row)).toBe(
      '{"{\\"a\\",\\"b\\"}","{}","{\\"\\\\\\"\\"}"}',
    );
    fc.assert(
      fc.property(fc.array(fc.array(text, { maxLength: 4 }), { maxLength: 6 }), (rows) => {
        expect(nestedLiteral(rows, (row) => row)).toBe(arrayLiteral(rows.map(arrayLiteral)));
      }),
    );
  });
});
