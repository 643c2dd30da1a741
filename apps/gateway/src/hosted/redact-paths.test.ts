import { describe, expect, it } from 'vitest';
import { pathSegments, redactPaths } from './redact-paths.ts';

describe('redactPaths', () => {
  it.each([
    ['debug.token', ['debug', 'token']],
    ['items[0].token', ['items', '0', 'token']],
    ['items[*].token', ['items', '*', 'token']],
    ['a..b', ['a', 'b']],
  ])('reads %s as segments', (path, segments) => {
    expect(pathSegments(path)).toEqual(segments);
  });

  it('leaves the input unchanged and what it does not name alone', () => {
    const input = { a: { b: 1, c: 2 }, list: [1, 2] };
    const { value, paths } = redactPaths(input, ['a.b', 'a.missing', 'list.5', 'list.x', 'a.b.c']);
    expect(value).toEqual({ a: { b: '[REDACTED]', c: 2 }, list: [1, 2] });
    expect(paths).toEqual(['a.b']);
    expect(input.a.b).toBe(1);
  });

  it('replaces whole subtrees and every key under a wildcard', () => {
    const { value, paths } = redactPaths({ a: { b: { deep: true } }, m: { x: 1, y: 2 } }, [
      'a.b',
      'm.*',
    ]);
    expect(value).toEqual({ a: { b: '[REDACTED]' }, m: { x: '[REDACTED]', y: '[REDACTED]' } });
    expect(paths).toEqual(['a.b', 'm.x', 'm.y']);
  });

  it('lists at most 100 concrete paths', () => {
    const { paths } = redactPaths(
      Array.from({ length: 500 }, () => ({ k: 1 })),
      ['*.k'],
    );
    expect(paths).toHaveLength(100);
  });

  it('ignores a prototype key', () => {
    const { value } = redactPaths({ a: 1 }, ['__proto__.x', 'constructor']);
    expect(value).toEqual({ a: 1 });
  });
});
