/**
 * Token buckets for `rate_limit` rules: `calls` tokens, refilled continuously at `calls / per`.
 * One process's buckets: a fleet of N gateways allows up to N× a limit (docs/policies.md).
 * The clock is injected so tests (and decisions) are deterministic.
 */

/** One bucket a call draws from: its key (rule + who) and the rule's limit. */
export interface RateBucket {
  key: string;
  calls: number;
  perMs: number;
}

export type TakeResult = { ok: true } | { ok: false; index: number; retryAfterMs: number };

interface BucketState {
  tokens: number;
  at: number;
}

export interface TokenBucketsOptions {
  /** Most buckets kept; the least recently used is dropped (it refills to full anyway). */
  maxBuckets?: number;
  now?: () => number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, BucketState>();
  private readonly maxBuckets: number;
  private readonly now: () => number;

  constructor(options: TokenBucketsOptions = {}) {
    this.maxBuckets = options.maxBuckets ?? 100_000;
    this.now = options.now ?? (() => performance.now());
  }

  /**
   * Takes one token from every bucket, or none: a call two limits cover is refused by the first
   * empty one without spending the other's token. `retryAfterMs`: until that bucket has one.
   */
  take(buckets: ReadonlyArray<RateBucket>): TakeResult {
    const now = this.now();
    const states = buckets.map((bucket) => this.refilled(bucket, now));
    for (const [index, state] of states.entries()) {
      if (state.tokens < 1) {
        const bucket = buckets[index] as RateBucket;
        const perToken = bucket.perMs / bucket.calls;
        return { ok: false, index, retryAfterMs: Math.ceil((1 - state.tokens) * perToken) };
      }
    }
    for (const state of states) state.tokens -= 1;
    return { ok: true };
  }

  get size(): number {
    return this.buckets.size;
  }

  private refilled(bucket: RateBucket, now: number): BucketState {
    let state = this.buckets.get(bucket.key);
    if (state === undefined) {
      state = { tokens: bucket.calls, at: now };
      if (this.buckets.size >= this.maxBuckets) {
        this.buckets.delete(this.buckets.keys().next().value as string);
      }
    } else {
      // Re-inserted: the map's order is least recently used first.
      this.buckets.delete(bucket.key);
      const refill = ((now - state.at) * bucket.calls) / bucket.perMs;
      state = { tokens: Math.min(bucket.calls, state.tokens + refill), at: now };
    }
    this.buckets.set(bucket.key, state);
    return state;
  }
}
