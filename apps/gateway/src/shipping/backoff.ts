import { setTimeout as sleep } from 'node:timers/promises';

export interface BackoffOptions {
  /** First delay after a failure. Default 250 ms. */
  initialMs: number;
  /** Ceiling the doubling stops at. Default 30 s. */
  maxMs: number;
  /** Each delay is randomly scaled by up to ± this fraction. Default 0.2. */
  jitter: number;
  /** Injectable for tests; `Math.random` by default. */
  random: () => number;
}

export const DEFAULT_BACKOFF: BackoffOptions = {
  initialMs: 250,
  maxMs: 30_000,
  jitter: 0.2,
  random: Math.random,
};

/**
 * Exponential backoff with jitter, shared by policy sync and receipt shipping. The jitter keeps a
 * fleet of gateways that lost the API at the same moment from reconnecting in lockstep.
 */
export class Backoff {
  private readonly options: BackoffOptions;
  private failures = 0;

  constructor(options: Partial<BackoffOptions> = {}) {
    this.options = { ...DEFAULT_BACKOFF, ...options };
  }

  /** Consecutive failures since the last success. */
  get attempts(): number {
    return this.failures;
  }

  /** Records a failure and returns how long to wait before the next attempt. */
  next(): number {
    const { initialMs, maxMs, jitter, random } = this.options;
    const base = Math.min(maxMs, initialMs * 2 ** Math.min(this.failures, 30));
    this.failures++;
    return Math.max(0, Math.round(base * (1 + jitter * (2 * random() - 1))));
  }

  reset(): void {
    this.failures = 0;
  }
}

/** Waits `ms`, or less when `signal` aborts; never throws (a stopping loop just moves on). */
export async function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    // aborted: the caller checks why
  }
}
