import { type ApiClient, ApiError } from '@toolgate/contract';
import type { ToolCallApprovalSpec } from '@toolgate/core';
import type { Logger } from 'pino';
import { Backoff } from '../shipping/backoff.ts';

export interface ApprovalRequestsOptions {
  client: ApiClient;
  log: Pick<Logger, 'warn' | 'error' | 'debug'>;
  /** Most requests waiting to be sent; past it the oldest is dropped (the agent's retry re-asks). */
  maxQueued?: number;
  /**
   * A request sent for an action is not sent again for this long (until the watch has reported
   * the approval; after that the gate asks only for unknown or expired ones). Default 1 s.
   */
  resendAfterMs?: number;
  now?: () => number;
  onDropped?: () => void;
}

/**
 * Asks the API for approvals (`POST …/toolcallapprovals/{name}/request`), off the request path:
 * the agent's answer never waits for it. One request per action in flight or recently sent (an
 * agent retrying a pending call in a loop costs the API nothing); failures are retried with
 * backoff. Nothing here is durable: if the gateway stops before a request lands, the agent's
 * next attempt asks again, and the API keeps one approval per action whatever arrives twice.
 */
export class ApprovalRequests {
  private readonly queue = new Map<string, ToolCallApprovalSpec>();
  private readonly sentAt = new Map<string, number>();
  private readonly backoff = new Backoff();
  private readonly maxQueued: number;
  private readonly resendAfterMs: number;
  private readonly now: () => number;
  private running: Promise<void> | undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ApprovalRequestsOptions) {
    this.maxQueued = options.maxQueued ?? 1000;
    this.resendAfterMs = options.resendAfterMs ?? 1_000;
    this.now = options.now ?? Date.now;
  }

  submit(spec: ToolCallApprovalSpec): void {
    if (this.stopped || this.queue.has(spec.actionId)) return;
    const sent = this.sentAt.get(spec.actionId);
    if (sent !== undefined && this.now() - sent < this.resendAfterMs) return;
    if (this.queue.size >= this.maxQueued) {
      this.queue.delete(this.queue.keys().next().value as string);
      this.options.onDropped?.();
    }
    this.queue.set(spec.actionId, spec);
    if (this.timer === undefined) this.kick();
  }

  /** Sends everything queued now (tests, shutdown). */
  async flush(): Promise<void> {
    this.kick();
    await this.running;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  get pending(): number {
    return this.queue.size;
  }

  private kick(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  private async drain(): Promise<void> {
    for (const [actionId, spec] of this.queue) {
      if (this.stopped) return;
      try {
        await this.options.client.call('toolCallApprovals.request', {
          params: { name: actionId },
          body: { spec },
        });
        this.backoff.reset();
      } catch (error) {
        const status = error instanceof ApiError ? error.httpStatus : undefined;
        if (
          status !== undefined &&
          status >= 400 &&
          status < 500 &&
          status !== 408 &&
          status !== 429
        ) {
          // Refused for good (a gateway bug or a policy it may not act on): not retried.
          this.options.log.error({ err: error, actionId }, 'approval request refused by the API');
        } else {
          const wait = this.backoff.next();
          this.options.log.warn(
            { err: error, actionId, retryInMs: wait },
            'approval request failed',
          );
          this.timer = setTimeout(() => this.kick(), wait);
          this.timer.unref();
          return;
        }
      }
      this.queue.delete(actionId);
      this.sentAt.set(actionId, this.now());
      if (this.sentAt.size > this.maxQueued * 10) {
        this.sentAt.delete(this.sentAt.keys().next().value as string);
      }
    }
  }
}
