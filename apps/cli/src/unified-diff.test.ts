import { describe, expect, it } from 'vitest';
import { unifiedDiff } from './unified-diff.ts';

const lines = (...items: string[]) => `${items.join('\n')}\n`;

describe('unifiedDiff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff({ label: 'a', text: 'x\n' }, { label: 'b', text: 'x\n' })).toBe('');
  });

  // Expected outputs are what GNU `diff -u --label a --label b` prints for the same input.
  it('prints separate hunks with three lines of context, as diff -u does', () => {
    const from = lines('1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12');
    const to = lines('1', 'two', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '13');
    expect(unifiedDiff({ label: 'a', text: from }, { label: 'b', text: to })).toBe(
      lines(
        '--- a',
        '+++ b',
        '@@ -1,5 +1,5 @@',
        ' 1',
        '-2',
        '+two',
        ' 3',
        ' 4',
        ' 5',
        '@@ -10,3 +10,4 @@',
        ' 10',
        ' 11',
        ' 12',
        '+13',
      ),
    );
  });

  it('joins changes closer than twice the context into one hunk', () => {
    const from = lines('a', 'b', 'c', 'd', 'e', 'f', 'g');
    const to = lines('a', 'B', 'c', 'd', 'e', 'F', 'g');
    expect(unifiedDiff({ label: 'a', text: from }, { label: 'b', text: to })).toBe(
      lines(
        '--- a',
        '+++ b',
        '@@ -1,7 +1,7 @@',
        ' a',
        '-b',
        '+B',
        ' c',
        ' d',
        ' e',
        '-f',
        '+F',
        ' g',
      ),
    );
  });

  it('diffs against nothing', () => {
    expect(unifiedDiff({ label: 'a', text: '' }, { label: 'b', text: lines('x', 'y') })).toBe(
      lines('--- a', '+++ b', '@@ -0,0 +1,2 @@', '+x', '+y'),
    );
  });
});
