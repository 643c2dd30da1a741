import { describe, expect, it } from 'vitest';
import { allPages, pageRequest } from './all-pages.ts';

describe('allPages', () => {
  it('follows continue tokens until none is left, in order', async () => {
    const asked: Array<string | undefined> = [];
    const pages: Record<string, { items: number[]; metadata: { continue?: string } }> = {
      first: { items: [1, 2], metadata: { continue: 'b' } },
      b: { items: [3], metadata: { continue: 'c' } },
      c: { items: [], metadata: {} },
    };
    const items = await allPages(async (next) => {
      asked.push(next);
      return pages[next ?? 'first'] as (typeof pages)['first'];
    });
    expect(items).toEqual([1, 2, 3]);
    expect(asked).toEqual([undefined, 'b', 'c']);
  });

  it('asks for 1,000 a page, the token and signal only when given', () => {
    const signal = new AbortController().signal;
    expect(pageRequest(undefined)).toEqual({ query: { limit: 1000 } });
    expect(pageRequest('t', signal)).toEqual({ query: { limit: 1000, continue: 't' }, signal });
  });
});
