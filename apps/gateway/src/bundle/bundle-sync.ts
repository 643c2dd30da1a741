import type { ApiClient } from '@toolgate/contract';
import {
  boundedText,
  type GatewayStatus,
  type ReceiptChainStatus,
  type ReceiptQuarantineStatus,
} from '@toolgate/core';
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../metrics.ts';
import { Backoff, type BackoffOptions, pause } from '../shipping/backoff.ts';
import { bundleText, UndecodableBodyError } from './bundle-body.ts';
import type { ActiveBundle, BundleStore } from './bundle-store.ts';
import { type SpoolState, SyncStatus } from './sync-status.ts';
import { BundleRejectedError } from './validate-bundle.ts';

export interface BundleSyncOptions {
  gateway: string;
  store: BundleStore;
  /** Where bundles come from (the API, holding this gateway's token). */
  client: ApiClient;
  /** Where `Gateway.status` goes; `client` by default. Separate so each side can be tested. */
  statusClient?: ApiClient;
  metrics: Pick<GatewayMetrics, 'syncFailures' | 'bundleAgeSeconds'>;
  log: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** Long-poll `wait` (0–60 s). Default 30. */
  waitSeconds?: number;
  /** Status is re-reported this often (spool depth, bundle age) besides on every change. */
  statusIntervalMs?: number;
  version?: string;
  spoolDepth?: () => number | undefined;
  /** The spool's `SpoolFull` state and drop count, reported in `Gateway.status`. */
  spoolState?: () => SpoolState;
  /** The receipt quarantine's count and newest entries, reported in `Gateway.status`. */
  receiptQuarantine?: () => ReceiptQuarantineStatus;
  /** The newest receipt the API acknowledged, reported in `Gateway.status`. */
  receiptChain?: () => ReceiptChainStatus | undefined;
  backoff?: Partial<BackoffOptions>;
  onApplied?: (active: ActiveBundle) => void;
  onRejected?: (error: BundleRejectedError) => void;
  /** A poll failed (network, timeout, HTTP error); the next one starts in `retryInMs`. */
  onUnreachable?: (error: Error, retryInMs: number) => void;
  now?: () => Date;
}

/** Slack past `wait` before a poll counts as hung (a half-open connection never answers). */
const POLL_GRACE_MS = 15_000;

/**
 * The policy long-poll loop (docs/sync-protocol.md): `GET …/bundle?wait=N` with `If-None-Match`,
 * apply what comes back, and ACK or NACK it through `Gateway.status`. Whatever goes wrong — the
 * API down, a bad bundle — the last good bundle stays in force.
 *
 * After a NACK the loop polls with the *rejected* ETag, so the API holds the poll until the
 * bundle changes again instead of serving the same bad bundle in a hot loop.
 */
export class BundleSync {
  private readonly stopping = new AbortController();
  private readonly backoff: Backoff;
  private readonly status: SyncStatus;
  private readonly waitSeconds: number;
  private readonly now: () => Date;
  private loop: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private rejected: { etag: string; message: string } | undefined;

  constructor(private readonly options: BundleSyncOptions) {
    this.backoff = new Backoff(options.backoff);
    this.waitSeconds = options.waitSeconds ?? 30;
    this.now = options.now ?? (() => new Date());
    this.status = new SyncStatus({
      gateway: options.gateway,
      client: options.statusClient ?? options.client,
      log: options.log,
      appliedEtag: () => options.store.current()?.etag,
      ...(options.spoolDepth ? { spoolDepth: options.spoolDepth } : {}),
      ...(options.spoolState ? { spoolState: options.spoolState } : {}),
      ...(options.receiptQuarantine ? { receiptQuarantine: options.receiptQuarantine } : {}),
      ...(options.receiptChain ? { receiptChain: options.receiptChain } : {}),
      ...(options.version !== undefined ? { version: options.version } : {}),
      now: this.now,
      signal: this.stopping.signal,
    });
  }

  /** What the gateway last reported (or would have) as `Gateway.status`. */
  get gatewayStatus(): GatewayStatus {
    return this.status.snapshot();
  }

  start(): void {
    if (this.stopping.signal.aborted) throw new Error('BundleSync was stopped');
    if (this.loop) return;
    this.loop = this.run();
    this.timer = setInterval(() => this.tick(), this.options.statusIntervalMs ?? 30_000);
    this.timer.unref();
  }

  /** Aborts the poll in flight and any status write; resolves when the loop has ended. */
  async stop(): Promise<void> {
    this.stopping.abort();
    clearInterval(this.timer);
    await this.loop;
  }

  /** Resolves when the status write in flight (if any) is done; for tests and shutdown. */
  reportStatus(): Promise<void> {
    return this.status.report();
  }

  private async run(): Promise<void> {
    const { signal } = this.stopping;
    while (!signal.aborted) {
      let delayMs: number;
      try {
        delayMs = await this.pollOnce();
      } catch (error) {
        // A bug (or a throwing callback) must not end policy sync for the life of the process.
        this.options.log.error({ err: error }, 'policy sync iteration failed unexpectedly');
        delayMs = this.backoff.next();
      }
      if (delayMs > 0) await pause(delayMs, signal);
    }
  }

  /** One poll and its consequences; returns how long to wait before the next one. */
  private async pollOnce(): Promise<number> {
    const { client, gateway } = this.options;
    const activeEtag = this.options.store.current()?.etag;
    const sent = this.rejected?.etag || activeEtag;
    let response: Response;
    let text = '';
    /** Why the body could not be read as text (cut or corrupt gzip): a NACK, once it is named. */
    let undecodable: string | undefined;
    try {
      response = await client.raw('sync.bundle', {
        params: { name: gateway },
        query: { wait: this.waitSeconds },
        // A woken fleet's answers come gzipped (~4× smaller); bundleText decodes them.
        headers: sent
          ? { 'if-none-match': `"${sent}"`, 'accept-encoding': 'gzip' }
          : { 'accept-encoding': 'gzip' },
        signal: AbortSignal.any([
          this.stopping.signal,
          AbortSignal.timeout(this.waitSeconds * 1000 + POLL_GRACE_MS),
        ]),
      });
      if (response.status === 304) await response.body?.cancel();
      else {
        try {
          text = await bundleText(response);
        } catch (error) {
          if (!(error instanceof UndecodableBodyError)) throw error;
          undecodable = error.message;
        }
      }
    } catch (error) {
      if (this.stopping.signal.aborted) return 0;
      return this.unreachable(error as Error);
    }
    if (response.status === 304) return this.confirmed(sent !== undefined && sent === activeEtag);
    if (response.status !== 200) {
      return this.unreachable(new Error(`API answered ${response.status}: ${errorText(text)}`));
    }
    this.status.touch();
    const etag = parseEtag(response.headers.get('etag'));
    if (etag !== undefined && etag === sent) {
      // A server (or proxy) that ignores If-None-Match: treat as unchanged, but do not spin.
      this.unchanged();
      return this.backoff.next();
    }
    if (etag === undefined) {
      return this.reject(new BundleRejectedError('', 'the bundle response has no ETag header'));
    }
    if (undecodable !== undefined) {
      return this.reject(new BundleRejectedError(etag, `(root): body is not JSON: ${undecodable}`));
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      return this.reject(
        new BundleRejectedError(etag, `(root): body is not JSON: ${(error as Error).message}`),
      );
    }
    let active: ActiveBundle;
    try {
      active = await this.options.store.apply(raw, etag);
    } catch (error) {
      if (error instanceof BundleRejectedError) return this.reject(error);
      return this.persistFailed(error as Error);
    }
    return this.applied(active, activeEtag);
  }

  private applied(active: ActiveBundle, previousEtag: string | undefined): number {
    const { log, metrics, onApplied } = this.options;
    const wasRejected = this.rejected !== undefined;
    this.rejected = undefined;
    this.backoff.reset();
    metrics.bundleAgeSeconds.set(this.ageSeconds(active));
    const conditionChanged = this.status.set('True', 'BundleApplied', '');
    const bundleChanged = previousEtag !== active.etag;
    if (conditionChanged || bundleChanged || wasRejected) void this.status.report();
    if (bundleChanged) {
      log.info(
        { etag: active.etag, previousEtag, policies: active.bundle.policies.length },
        'policy bundle applied',
      );
      onApplied?.(active);
    }
    return 0;
  }

  private reject(error: BundleRejectedError): number {
    const { log, metrics, onRejected } = this.options;
    const repeated = this.rejected !== undefined && this.rejected.etag === error.etag;
    this.rejected = { etag: error.etag, message: error.message };
    metrics.syncFailures.inc({ reason: 'rejected' });
    log.error(
      { etag: error.etag, error: error.message, activeEtag: this.options.store.current()?.etag },
      'policy bundle rejected (NACK); the last good bundle stays in force',
    );
    if (this.status.set('False', 'BundleRejected', error.message)) void this.status.report();
    onRejected?.(error);
    // Polling with the rejected ETag makes the API wait for a change; only a bundle we cannot
    // name (no ETag) could come straight back, and that must not become a hot loop.
    return repeated ? this.backoff.next() : 0;
  }

  /**
   * The API answered 304: nothing new. When the poll named the bundle in force (a rejected one
   * had no ETag to name), the API's latest is the one we run: whatever was refused is over.
   */
  private confirmed(runningLatest: boolean): number {
    if (runningLatest) this.rejected = undefined;
    this.backoff.reset();
    this.unchanged();
    return 0;
  }

  /** We run the API's latest bundle, or still refuse it. */
  private unchanged(): void {
    this.status.touch();
    const changed = this.rejected
      ? this.status.set('False', 'BundleRejected', this.rejected.message)
      : this.status.set('True', 'BundleApplied', '');
    if (changed) void this.status.report();
  }

  private unreachable(error: Error): number {
    const { log, metrics, onUnreachable } = this.options;
    const retryInMs = this.backoff.next();
    metrics.syncFailures.inc({ reason: 'unreachable' });
    log.warn(
      { err: error, attempts: this.backoff.attempts, retryInMs },
      'policy sync failed; keeping the last good bundle',
    );
    if (this.status.set('False', 'ApiUnreachable', error.message)) void this.status.report();
    onUnreachable?.(error, retryInMs);
    return retryInMs;
  }

  /** A valid bundle that could not be written to disk: retried, since that is no fault of it. */
  private persistFailed(error: Error): number {
    const { log, metrics } = this.options;
    metrics.syncFailures.inc({ reason: 'persist' });
    log.error({ err: error }, 'cannot persist the policy bundle; keeping the last good one');
    const message = `cannot persist the bundle: ${error.message}`;
    if (this.status.set('False', 'BundlePersistFailed', message)) void this.status.report();
    return this.backoff.next();
  }

  private tick(): void {
    const active = this.options.store.current();
    if (active) this.options.metrics.bundleAgeSeconds.set(this.ageSeconds(active));
    void this.status.report();
  }

  private ageSeconds(active: ActiveBundle): number {
    return Math.max(0, (this.now().getTime() - active.appliedAt.getTime()) / 1000);
  }
}

/** `"sha256:…"`, `W/"sha256:…"` or bare. */
function parseEtag(header: string | null): string | undefined {
  if (!header) return undefined;
  return header.trim().replace(/^W\//, '').replace(/^"|"$/g, '') || undefined;
}

/** The `message` of a Kubernetes Status body, or the start of whatever came back. */
function errorText(text: string): string {
  try {
    const status = JSON.parse(text) as { message?: unknown };
    if (typeof status.message === 'string') return status.message;
  } catch {
    // not JSON
  }
  return boundedText(text, 200) || '(empty body)';
}
