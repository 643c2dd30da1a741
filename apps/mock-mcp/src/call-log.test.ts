import { describe, expect, it } from 'vitest';
import { CallLog, LOGGED_ARGUMENTS_BYTES } from './call-log.ts';

describe('CallLog', () => {
  it('keeps the last entries, oldest first, and counts all', () => {
    const log = new CallLog(2);
    for (const text of ['a', 'b', 'c'])
      log.add({ tool: 'echo', arguments: { text }, session: 's' });
    expect(log.last().map((c) => [c.seq, c.arguments])).toEqual([
      [2, { text: 'b' }],
      [3, { text: 'c' }],
    ]);
    expect(log.last(1)[0]?.seq).toBe(3);
    expect(log.total).toBe(3);
    log.clear();
    expect([log.last(), log.total]).toEqual([[], 0]);
  });

  it('keeps only the size of large arguments', () => {
    const log = new CallLog();
    log.add({
      tool: 'echo',
      arguments: { text: 'x'.repeat(LOGGED_ARGUMENTS_BYTES) },
      session: undefined,
    });
    expect(log.last(1)[0]?.arguments).toEqual({
      truncated: true,
      bytes: LOGGED_ARGUMENTS_BYTES + 11,
    });
  });
});
