import { describe, expect, it } from 'vitest';
import { REDACTED, RequestLog, redactHeaders } from './request-log.ts';

describe('redactHeaders', () => {
  it('keeps that a secret header was sent but never its value', () => {
    expect(
      redactHeaders({
        authorization: 'Bearer sk-1',
        'x-api-key': 'k',
        cookie: 'c',
        'x-user-id': 'u',
      }),
    ).toEqual({
      authorization: REDACTED,
      'x-api-key': REDACTED,
      cookie: REDACTED,
      'x-user-id': 'u',
    });
  });
});

describe('RequestLog', () => {
  const entry = (n: number) => ({ method: 'POST', path: '/p', headers: {}, body: { n } });

  it('keeps the last entries up to its capacity, oldest first, numbered in arrival order', () => {
    const log = new RequestLog(3);
    for (let n = 1; n <= 5; n++) log.add(entry(n));
    expect(log.last().map((e) => [e.seq, e.body])).toEqual([
      [3, { n: 3 }],
      [4, { n: 4 }],
      [5, { n: 5 }],
    ]);
    expect(log.last(1).map((e) => e.seq)).toEqual([5]);
    expect(log.last(0)).toEqual([]);
    log.clear();
    expect(log.last()).toEqual([]);
  });
});
