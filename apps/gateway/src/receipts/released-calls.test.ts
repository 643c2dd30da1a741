import type { ResponseEvidence, ToolCallEvidence, ToolResults } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { ReleasedCalls } from './released-calls.ts';

const HASH = `sha256:${'a'.repeat(64)}` as const;

function call(id: string, state: ToolCallEvidence['policy_state'] = 'allowed'): ToolCallEvidence {
  return {
    id,
    name: 'search',
    arguments_hash: HASH,
    action_id: `act_${id}`,
    policy_state: state,
  };
}

function evidence(...calls: ToolCallEvidence[]): ResponseEvidence {
  return { tool_calls: calls, hosted_tool_events: [] };
}

function results(...ids: Array<[string, string | undefined]>): ToolResults {
  return {
    truncated: false,
    entries: ids.map(([id, action]) => ({
      tool_call_id: id,
      ...(action !== undefined ? { action_id: action } : {}),
      result_hash: HASH,
      is_error: false,
      elapsed_ms: null,
    })),
  };
}

const elapsedOf = (clock: ReleasedCalls, r: ToolResults, at: number) =>
  clock.elapsed(r, at).entries.map((e) => e.elapsed_ms);

describe('ReleasedCalls', () => {
  it('times a result from the release of its allowed call; withheld calls are never timed', () => {
    const clock = new ReleasedCalls();
    clock.release(evidence(call('a'), call('b', 'blocked'), call('c', 'deferred')), 1000);
    const got = results(['a', 'act_a'], ['b', 'act_b'], ['c', 'act_c'], ['z', undefined]);
    expect(elapsedOf(clock, got, 1250)).toEqual([250, null, null, null]);
  });

  it('needs the call id and the action id to match (a guessed id is not enough)', () => {
    const clock = new ReleasedCalls();
    clock.release(evidence(call('a')), 0);
    expect(elapsedOf(clock, results(['a', 'act_other']), 10)).toEqual([null]);
  });

  it('forgets releases past the TTL and past its size, oldest first', () => {
    const clock = new ReleasedCalls({ maxEntries: 3, ttlMs: 1000 });
    for (let i = 0; i < 5; i++) clock.release(evidence(call(`c${i}`)), i);
    expect(clock.size).toBe(3);
    const all = results(
      ...Array.from({ length: 5 }, (_, i) => [`c${i}`, `act_c${i}`] as [string, string]),
    );
    expect(elapsedOf(clock, all, 10)).toEqual([null, null, 8, 7, 6]);
    // Too late: null, and the next release drops the expired entries.
    expect(elapsedOf(clock, all, 2000)).toEqual([null, null, null, null, null]);
    clock.release(evidence(call('fresh')), 2000);
    expect(clock.size).toBe(1);
  });

  it('keeps memory bounded per entry: ids longer than a receipt holds are not tracked', () => {
    const clock = new ReleasedCalls();
    clock.release(evidence(call('x'.repeat(100_000))), 0);
    expect(clock.size).toBe(0);
  });

  it('reads a clock set back as zero elapsed, and costs nothing without results', () => {
    const clock = new ReleasedCalls();
    clock.release(evidence(call('a')), 5000);
    expect(elapsedOf(clock, results(['a', 'act_a']), 4000)).toEqual([0]);
    const none = results();
    expect(clock.elapsed(none, 0)).toBe(none);
  });
});
