import { ApiError } from '@toolgate/contract';
import { describe, expect, it } from 'vitest';
import { BackgroundSends, isRetryable } from './background-sends.ts';

const apiError = (httpStatus: number) =>
  new ApiError(
    {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: 'x',
      reason: 'x',
      code: httpStatus,
    } as never,
    httpStatus,
  );

describe('BackgroundSends', () => {
  it('retries what the API could not take (unreachable, 5xx, 408, 429), drops a 4xx refusal', () => {
    expect([0, 500, 503, 408, 429].map((s) => isRetryable(apiError(s)))).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect([400, 403, 404, 413, 422].map((s) => isRetryable(apiError(s)))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(isRetryable(new Error('socket hang up'))).toBe(true);
  });

  it('sends each key once, the newest value, and keeps a failed one for the retry', async () => {
    const sent: string[] = [];
    const retries: string[] = [];
    const refused: string[] = [];
    let failNext: number | undefined = 0; // the API unreachable at first
    const sends = new BackgroundSends<string>({
      send: async (key, value) => {
        if (failNext !== undefined) {
          const status = failNext;
          failNext = undefined;
          throw apiError(status);
        }
        if (value === 'bad') throw apiError(422);
        sent.push(`${key}=${value}`);
      },
      onRefused: (key) => refused.push(key),
      onRetry: (key) => retries.push(key),
    });
    sends.put('a', '1');
    await sends.flush().catch(() => {});
    expect(retries).toEqual(['a']);
    expect(sends.size).toBe(1);
    // While it waits, a newer value replaces it, and another key joins.
    sends.put('a', '2');
    sends.put('b', 'bad');
    await sends.flush();
    expect(sent).toEqual(['a=2']);
    expect(refused).toEqual(['b']);
    expect(sends.size).toBe(0);
    sends.stop();
    sends.put('c', '3');
    expect(sends.size).toBe(0);
  });
});
