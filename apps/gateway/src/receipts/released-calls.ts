import { RECEIPT_LIMITS, type ResponseEvidence, type ToolResults } from '@toolgate/core';

export interface ReleasedCallsOptions {
  /** Calls remembered at most; the oldest release is forgotten first. */
  maxEntries?: number;
  /** How long a release is remembered, in ms: a result later than that gets `elapsed_ms: null`. */
  ttlMs?: number;
}

const DEFAULT_MAX_ENTRIES = 100_000;
const DEFAULT_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * When this gateway released each allowed tool call to an agent, so the receipt of the request
 * bringing the call's result back can say how long the tool took (`tool_results[].elapsed_ms`).
 * In memory and bounded: a result whose call another replica released, or this process released
 * before a restart, or longer ago than the TTL, gets null — never a guess.
 *
 * Keyed by the call's id *and* its action id: the result's action id is computed from the call
 * as the agent echoes it, with the agent's identity, so an agent that only knows (or guesses)
 * another conversation's call id does not match its release.
 */
export class ReleasedCalls {
  /** key → release time (ms); in release order, so the oldest entries are at the front. */
  private readonly released = new Map<string, number>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;

  constructor(options: ReleasedCallsOptions = {}) {
    this.maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  }

  get size(): number {
    return this.released.size;
  }

  /**
   * Records the calls of a response that reached the agent at `at` (ms). Only `allowed` calls:
   * a withheld call never reached the agent, so nothing it sends back is that call's result.
   */
  release(evidence: ResponseEvidence | undefined, at: number): void {
    if (evidence === undefined) return;
    for (const call of evidence.tool_calls) {
      if (call.policy_state !== 'allowed' || call.id.length > RECEIPT_LIMITS.toolCallId) continue;
      const key = keyOf(call.id, call.action_id);
      // Re-inserted, so the Map's order stays the release order.
      this.released.delete(key);
      this.released.set(key, at);
    }
    this.forgetOld(at);
  }

  /**
   * `results` with `elapsed_ms` filled for the calls this gateway released: from the release
   * to `receivedAt` (ms), the moment the result reached the gateway. The same object when there
   * are no results.
   */
  elapsed(results: ToolResults, receivedAt: number): ToolResults {
    if (results.entries.length === 0) return results;
    const entries = results.entries.map((result) => {
      if (result.action_id === undefined) return result;
      const releasedAt = this.released.get(keyOf(result.tool_call_id, result.action_id));
      if (releasedAt === undefined || receivedAt - releasedAt > this.ttlMs) return result;
      // A wall clock set back between the two reads as zero, not as a negative duration.
      return { ...result, elapsed_ms: Math.max(0, receivedAt - releasedAt) };
    });
    return { ...results, entries };
  }

  /** Drops releases past the TTL and, past the size bound, the oldest. */
  private forgetOld(now: number): void {
    for (const [key, at] of this.released) {
      if (this.released.size <= this.maxEntries && now - at <= this.ttlMs) break;
      this.released.delete(key);
    }
  }
}

function keyOf(id: string, actionId: string): string {
  return `${actionId}\u0000${id}`;
}
