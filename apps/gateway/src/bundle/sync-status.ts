import type { ApiClient } from '@toolgate/contract';
import {
  boundedText,
  type Condition,
  type GatewayStatus,
  type ReceiptChainStatus,
  type ReceiptQuarantineStatus,
  SPOOL_FULL_CONDITION,
  SYNCED_CONDITION,
} from '@toolgate/core';
import type { Logger } from 'pino';

/** Why the gateway is (or is not) running the API's latest bundle. */
export type SyncedReason =
  | 'BundleApplied'
  | 'BundleRejected'
  | 'ApiUnreachable'
  | 'BundlePersistFailed';

export interface SyncStatusOptions {
  gateway: string;
  client: ApiClient;
  log: Pick<Logger, 'debug' | 'warn'>;
  /** ETag of the bundle in force (with a NACK still the last good one). */
  appliedEtag: () => string | undefined;
  spoolDepth?: () => number | undefined;
  /** Whether the receipt spool is full (and why), and how many receipts it dropped. */
  spoolState?: () => SpoolState;
  /** What the receipt quarantine holds (count, newest entries). */
  receiptQuarantine?: () => ReceiptQuarantineStatus;
  /** The newest receipt the API acknowledged, if any shipped since the gateway started. */
  receiptChain?: () => ReceiptChainStatus | undefined;
  version?: string;
  now: () => Date;
  /** Aborts a status write in flight when the gateway stops. */
  signal: AbortSignal;
}

export interface SpoolState {
  full: boolean;
  dropped: number;
  /** What a full spool does right now, for operators (the `SpoolFull` message). */
  detail: string;
}

/** The API caps condition messages; a long list of field errors is cut, not refused. */
const MAX_MESSAGE = 32_768;

/**
 * The `Synced` condition and the rest of `Gateway.status`, and their delivery to the API.
 * Writes are coalesced — at most one in flight, and whatever changed meanwhile goes in one more —
 * so a slow API never queues up stale reports. A failed write is logged and otherwise ignored:
 * reporting must never get in the way of syncing or enforcing.
 */
export class SyncStatus {
  private condition: Condition | undefined;
  /** `SpoolFull`, from the first time the spool was full on (absent before: nothing to say). */
  private spoolCondition: Condition | undefined;
  private lastSyncTime: Date | undefined;
  private sending: Promise<void> | undefined;
  private dirty = false;
  private failures = 0;

  constructor(private readonly options: SyncStatusOptions) {}

  /** The condition as last set; undefined before the first sync attempt ended. */
  get synced(): Condition | undefined {
    return this.condition;
  }

  /**
   * Sets `Synced`; `lastTransitionTime` moves only when the status flips (Kubernetes
   * convention), so operators see since when the gateway has been out of sync.
   * Returns true when anything an operator would see changed.
   */
  set(status: 'True' | 'False', reason: SyncedReason, message: string): boolean {
    const previous = this.condition;
    const text = boundedText(message, MAX_MESSAGE);
    if (previous?.status === status && previous.reason === reason && previous.message === text) {
      return false;
    }
    this.condition = {
      type: SYNCED_CONDITION,
      status,
      reason,
      message: text,
      lastTransitionTime:
        previous?.status === status
          ? previous.lastTransitionTime
          : this.options.now().toISOString(),
    };
    return true;
  }

  /** The API answered a poll (a bundle or 304). */
  touch(): void {
    this.lastSyncTime = this.options.now();
  }

  snapshot(): GatewayStatus {
    const etag = this.options.appliedEtag();
    const depth = this.options.spoolDepth?.();
    const spool = this.options.spoolState?.();
    const spoolCondition = spool ? this.spoolFull(spool) : undefined;
    const quarantine = this.options.receiptQuarantine?.();
    const chain = this.options.receiptChain?.();
    const conditions = [this.condition, spoolCondition].filter((c) => c !== undefined);
    return {
      ...(etag !== undefined ? { appliedBundleETag: etag } : {}),
      conditions,
      ...(this.lastSyncTime ? { lastSyncTime: this.lastSyncTime.toISOString() } : {}),
      ...(depth !== undefined ? { spoolDepth: depth } : {}),
      ...(spool ? { spoolDropped: spool.dropped } : {}),
      ...(quarantine ? { receiptQuarantine: quarantine } : {}),
      ...(chain ? { receiptChain: chain } : {}),
      ...(this.options.version !== undefined ? { version: this.options.version } : {}),
    };
  }

  /** `SpoolFull` for the current state; its transition time moves only when it flips. */
  private spoolFull(state: SpoolState): Condition | undefined {
    const previous = this.spoolCondition;
    if (!state.full && previous === undefined) return undefined;
    const status = state.full ? 'True' : 'False';
    const message = state.full ? state.detail : '';
    if (previous?.status === status && previous.message === message) return previous;
    this.spoolCondition = {
      type: SPOOL_FULL_CONDITION,
      status,
      reason: state.full ? 'SpoolAtCapacity' : 'SpoolHasRoom',
      message,
      lastTransitionTime:
        previous?.status === status
          ? previous.lastTransitionTime
          : this.options.now().toISOString(),
    };
    return this.spoolCondition;
  }

  /** Writes the status (coalesced); resolves when the write, or the next one, is done. */
  report(): Promise<void> {
    if (this.condition === undefined) return Promise.resolve();
    this.dirty = true;
    this.sending ??= this.drain().finally(() => {
      this.sending = undefined;
    });
    return this.sending;
  }

  private async drain(): Promise<void> {
    while (this.dirty && !this.options.signal.aborted) {
      this.dirty = false;
      await this.send();
    }
  }

  private async send(): Promise<void> {
    const { client, gateway, log, signal } = this.options;
    try {
      await client.call('gateways.replaceStatus', {
        params: { name: gateway },
        body: { status: this.snapshot() },
        signal,
      });
      if (this.failures > 0) log.debug({ gateway }, 'gateway status reported again');
      this.failures = 0;
    } catch (error) {
      if (signal.aborted) return;
      this.failures++;
      // Once per outage at warn level: the sync loop already logs that the API is down.
      const level = this.failures === 1 ? 'warn' : 'debug';
      log[level]({ err: error, gateway }, 'cannot report gateway status; will retry');
    }
  }
}
