import { describe, expect, it } from 'vitest';
import { diffJson } from './json-diff.ts';

describe('diffJson', () => {
  it.each([
    [{ a: 1 }, { a: 1 }, []],
    [{ a: 1 }, { a: 2 }, [{ op: 'replace', path: '/a', from: 1, value: 2 }]],
    [{ a: 1 }, { a: 1, b: 2 }, [{ op: 'add', path: '/b', value: 2 }]],
    [{ a: 1, b: 2 }, { a: 1 }, [{ op: 'remove', path: '/b', from: 2 }]],
    [{ 'a/b~': 1 }, { 'a/b~': 2 }, [{ op: 'replace', path: '/a~1b~0', from: 1, value: 2 }]],
    [
      { rules: [{ id: 'x' }, { id: 'y' }] },
      { rules: [{ id: 'x', on: true }] },
      [
        { op: 'add', path: '/rules/0/on', value: true },
        { op: 'remove', path: '/rules/1', from: { id: 'y' } },
      ],
    ],
    [
      [1],
      [1, 2, 3],
      [
        { op: 'add', path: '/1', value: 2 },
        { op: 'add', path: '/2', value: 3 },
      ],
    ],
    [{ a: [1] }, { a: { 0: 1 } }, [{ op: 'replace', path: '/a', from: [1], value: { 0: 1 } }]],
    [1, 2, [{ op: 'replace', path: '', from: 1, value: 2 }]],
  ])('%j → %j', (before, after, expected) => {
    expect(diffJson(before, after)).toEqual(expected);
  });

  it('ignores key order', () => {
    expect(diffJson({ a: { x: 1, y: 2 } }, { a: { y: 2, x: 1 } })).toEqual([]);
  });
});
