import type { ApiClient } from '@toolgate/contract';
import type { ToolCallApprovalSpec } from '@toolgate/core';
import type { Logger } from 'pino';
import { BackgroundSends } from '../shipping/background-sends.ts';

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
  private readonly sentAt = new Map<string, number>();
  private readonly sends: BackgroundSends<ToolCallApprovalSpec>;
  private readonly maxQueued: number;
  private readonly resendAfterMs: number;
  private readonly now: () => number;

  constructor(private readonly options: ApprovalRequestsOptions) {
    this.maxQueued = options.maxQueued ?? 1000;
    this.resendAfterMs = options.resendAfterMs ?? 1_000;
    this.now = options.now ?? Date.now;
    this.sends = new BackgroundSends<ToolCallApprovalSpec>({
      send: async (actionId, spec) => {
        await options.client.call('toolCallApprovals.request', {
          params: { name: actionId },
          body: { spec },
        });
      },
      onSent: (actionId) => this.noteSent(actionId),
      onRefused: (actionId, _spec, error) => {
        // Refused for good (a gateway bug or a policy it may not act on): not retried.
        options.log.error({ err: error, actionId }, 'approval request refused by the API');
        this.noteSent(actionId);
      },
      onRetry: (actionId, error, retryInMs) =>
        options.log.warn({ err: error, actionId, retryInMs }, 'approval request failed'),
    });
  }

  submit(spec: ToolCallApprovalSpec): void {
    if (this.sends.isStopped || this.sends.has(spec.actionId)) return;
    const sent = this.sentAt.get(spec.actionId);
    if (sent !== undefined && this.now() - sent < this.resendAfterMs) return;
    if (this.sends.size >= this.maxQueued) {
      this.sends.delete(this.sends.oldestKey() as string);
      this.options.onDropped?.();
    }
    this.sends.put(spec.actionId, spec);
  }

  /** Sends everything queued now (tests, shutdown). */
  flush(): Promise<void> {
    return this.sends.flush();
  }

  stop(): void {
    this.sends.stop();
  }

  get pending(): number {
    return this.sends.size;
  }

  private noteSent(actionId: string): void {
    this.sentAt.set(actionId, this.now());
    if (this.sentAt.size > this.maxQueued * 10) {
      this.sentAt.delete(this.sentAt.keys().next().value as string);
    }
  }
}
