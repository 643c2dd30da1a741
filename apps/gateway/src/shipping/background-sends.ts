import { ApiError } from '@toolgate/contract';
import { Backoff } from './backoff.ts';

/**
 * Whether a failed API call is worth retrying: anything but a 4xx refusal — the API unreachable
 * (the client's `httpStatus` 0), failing (5xx), timing out (408) or shedding load (429).
 */
export function isRetryable(error: unknown): boolean {
  const status = error instanceof ApiError ? error.httpStatus : undefined;
  const refused = status !== undefined && status >= 400 && status < 500;
  return !refused || status === 408 || status === 429;
}

export interface BackgroundSendsOptions<V> {
  /** Sends one entry; throws on failure. */
  send: (key: string, value: V) => Promise<void>;
  /** After the API took an entry. */
  onSent?: (key: string, value: V) => void;
  /** The API refused it for good: it is dropped, not retried. */
  onRefused: (key: string, value: V, error: unknown) => void;
  /** The send failed and everything waits `retryInMs` (backoff). */
  onRetry: (key: string, error: unknown, retryInMs: number) => void;
}

/**
 * Entries sent to the API off the request path, one at a time, by key: putting a key that is
 * waiting replaces its value (the newest wins), and an entry sent is removed only if no newer
 * value arrived while it was in flight. While the API is unreachable everything waits with
 * backoff. Nothing is durable: callers keep memory bounded (their keys) and their own dedupe.
 */
export class BackgroundSends<V> {
  private readonly waiting = new Map<string, V>();
  private readonly backoff = new Backoff();
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: BackgroundSendsOptions<V>) {}

  get size(): number {
    return this.waiting.size;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  has(key: string): boolean {
    return this.waiting.has(key);
  }

  get(key: string): V | undefined {
    return this.waiting.get(key);
  }

  /** The oldest waiting key (to drop when a caller's bound is reached). */
  oldestKey(): string | undefined {
    return this.waiting.keys().next().value;
  }

  delete(key: string): void {
    this.waiting.delete(key);
  }

  put(key: string, value: V): void {
    if (this.stopped) return;
    this.waiting.set(key, value);
    // A backoff timer pending means the API is failing: the retry sends this too.
    if (this.timer === undefined) this.kick();
  }

  /** Sends everything waiting now and waits for it (tests, shutdown). */
  async flush(): Promise<void> {
    this.kick();
    await this.running;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private kick(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  private async drain(): Promise<void> {
    while (!this.stopped) {
      const next = this.waiting.entries().next();
      if (next.done) return;
      const [key, value] = next.value;
      try {
        await this.options.send(key, value);
        this.backoff.reset();
        this.options.onSent?.(key, value);
      } catch (error) {
        if (isRetryable(error)) {
          const wait = this.backoff.next();
          this.options.onRetry(key, error, wait);
          this.timer = setTimeout(() => this.kick(), wait);
          this.timer.unref();
          return;
        }
        this.options.onRefused(key, value, error);
      }
      if (this.waiting.get(key) === value) this.waiting.delete(key);
    }
  }
}
