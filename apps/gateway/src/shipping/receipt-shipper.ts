import { join } from 'node:path';
import { type ApiClient, ApiError, type ReceiptIngestResult } from '@toolgate/contract';
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../metrics.ts';
import {
  decodeSpooledReceipt,
  type EncodedReceipt,
  ingestBody,
  parseSpooledReceipt,
  type SpooledReceipt,
} from '../receipts/spooled-receipt.ts';
import type { Spool } from '../spool/spool.ts';
import { Backoff, type BackoffOptions, pause } from './backoff.ts';
import { Quarantine, type QuarantinedReceipt } from './quarantine.ts';
import { SchemaUploader } from './schema-uploader.ts';

export interface ReceiptShipperOptions {
  gateway: string;
  spool: Spool<SpooledReceipt>;
  /** The API, holding this gateway's token. */
  client: ApiClient;
  /** Data directory: `rejected-receipts.ndjson` is written here. */
  dir: string;
  metrics: Pick<
    GatewayMetrics,
    'spoolDepth' | 'spoolDropped' | 'shippedReceipts' | 'shipFailures' | 'receiptsRejected'
  >;
  log: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** A batch ships as soon as this many receipts are pending (≤ 1000). Default 500. */
  batchSize?: number;
  /** …or once the oldest pending receipt is this old. Default 1000 ms. */
  intervalMs?: number;
  /** How often an idle shipper looks at the spool. Default 100 ms (a cheap in-memory read). */
  pollMs?: number;
  backoff?: Partial<BackoffOptions>;
  /** Uploaded schema hashes remembered. Default 10 000. */
  schemaMemory?: number;
  /** How long `stop()` lets a batch in flight finish before abandoning it. Default 5 s. */
  stopGraceMs?: number;
}

/** What one shipment (or a flush) did to the spool. */
export interface ShipResult {
  /** Stored by the API (`created`) or already there (`duplicate`), then acknowledged. */
  acknowledged: number;
  /** Rejected for good, written to the quarantine file, then acknowledged. */
  quarantined: number;
}

/**
 * Rejections no retry can turn into an acknowledgement. `ChainBroken` is one: the API's chain
 * cannot continue past a link it did not store, so waiting would block the spool forever.
 */
const PERMANENT_REJECTIONS = new Set([
  'ChainBroken',
  'Conflict',
  'Invalid',
  'HashMismatch',
  'WrongGateway',
]);

/** The API's answer cannot be applied to the batch as a whole: retried like a network error. */
export class ShipmentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShipmentError';
  }
}

/**
 * Ships spooled receipts to the API (docs/receipts.md): in spool order, one batch at a time,
 * when a batch is full or its oldest receipt has waited `intervalMs`. A receipt leaves the spool
 * only after the API answered `created` or `duplicate` for it — or rejected it for good, in
 * which case it is first written to a quarantine file. Transport failures, 5xx and 429 are
 * retried with backoff and acknowledge nothing; ingest is idempotent on receipt id, so a batch
 * whose answer was lost comes back as duplicates, never as second copies.
 */
export class ReceiptShipper {
  private readonly stopping = new AbortController();
  /** Aborted only when a stopping batch overruns its grace period. */
  private readonly requests = new AbortController();
  private readonly backoff: Backoff;
  private readonly schemas: SchemaUploader;
  private readonly quarantine: Quarantine;
  private readonly batchSize: number;
  private readonly intervalMs: number;
  private readonly pollMs: number;
  /** Below `batchSize` after a 413, until a batch gets through. */
  private batchLimit: number;
  /** Shipments run one at a time — the loop's and `flush()`'s alike — so order holds. */
  private lock: Promise<unknown> = Promise.resolve();
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly options: ReceiptShipperOptions) {
    this.batchSize = Math.min(1000, Math.max(1, options.batchSize ?? 500));
    this.batchLimit = this.batchSize;
    this.intervalMs = options.intervalMs ?? 1000;
    this.pollMs = options.pollMs ?? 100;
    this.backoff = new Backoff(options.backoff);
    this.schemas = new SchemaUploader({
      client: options.client,
      log: options.log,
      ...(options.schemaMemory !== undefined ? { remember: options.schemaMemory } : {}),
    });
    this.quarantine = new Quarantine(join(options.dir, 'rejected-receipts.ndjson'));
  }

  /** The file receipts rejected for good are moved to. */
  get quarantinePath(): string {
    return this.quarantine.path;
  }

  start(): void {
    if (this.stopping.signal.aborted) throw new Error('ReceiptShipper was stopped');
    this.loop ??= this.run();
  }

  /** Hint after an append: ships at once when a full batch is waiting. Optional (it polls). */
  notify(): void {
    if (this.wake && this.options.spool.stats().depth >= this.batchLimit) this.wake();
  }

  /**
   * Ships everything pending now, ignoring the interval, until the spool is empty. Rejects on
   * the first failed batch (nothing of it acknowledged) without retrying: for tests and shutdown.
   */
  async flush(): Promise<ShipResult> {
    const total: ShipResult = { acknowledged: 0, quarantined: 0 };
    try {
      for (;;) {
        const shipped = await this.exclusive(() => this.shipBatch());
        total.acknowledged += shipped.acknowledged;
        total.quarantined += shipped.quarantined;
        if (shipped.acknowledged + shipped.quarantined === 0) return total;
      }
    } catch (error) {
      this.options.metrics.shipFailures.inc();
      throw error;
    } finally {
      this.updateGauges();
    }
  }

  /**
   * Stops the loop. A batch in flight gets `stopGraceMs` to finish; after that its request is
   * aborted and its receipts simply stay in the spool (the next start ships them again).
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    const grace = setTimeout(() => this.requests.abort(), this.options.stopGraceMs ?? 5000);
    try {
      await this.loop;
      await this.lock;
    } finally {
      clearTimeout(grace);
    }
    this.updateGauges();
  }

  private async run(): Promise<void> {
    const { signal } = this.stopping;
    while (!signal.aborted) {
      this.updateGauges();
      if (!this.due()) {
        await this.idle();
        continue;
      }
      let shipped: ShipResult;
      try {
        shipped = await this.exclusive(() => this.shipBatch());
      } catch (error) {
        if (signal.aborted) break;
        await pause(this.failed(error as Error), signal);
        continue;
      }
      this.backoff.reset();
      // Pending records are not durable yet (an fsync is running): give it a moment.
      if (shipped.acknowledged + shipped.quarantined === 0) await this.idle();
    }
    this.updateGauges();
  }

  /** Size or time, whichever comes first. */
  private due(): boolean {
    const { depth, oldestAgeMs } = this.options.spool.stats();
    return depth >= this.batchLimit || (depth > 0 && oldestAgeMs >= this.intervalMs);
  }

  /** Sleeps until the oldest pending receipt is due, at most `pollMs`, or a `notify()`. */
  private idle(): Promise<void> {
    const { signal } = this.stopping;
    if (signal.aborted) return Promise.resolve();
    const { depth, oldestAgeMs } = this.options.spool.stats();
    const untilDue = depth > 0 ? Math.max(1, this.intervalMs - oldestAgeMs) : this.pollMs;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, Math.min(this.pollMs, untilDue));
      signal.addEventListener('abort', done, { once: true });
      this.wake = done;
    });
  }

  private exclusive<R>(task: () => Promise<R>): Promise<R> {
    const run = this.lock.then(task);
    this.lock = run.catch(() => {});
    return run;
  }

  /** Ships the oldest pending receipts once. Throws when the batch must be retried. */
  private async shipBatch(): Promise<ShipResult> {
    if (this.requests.signal.aborted) throw new ShipmentError('the shipper was stopped');
    const { spool, client, gateway } = this.options;
    const pending = await spool.pendingEncoded(this.batchLimit);
    if (pending.length === 0) return { acknowledged: 0, quarantined: 0 };
    const batch = pending.map(({ seq, payload }) => ({ seq, ...decodeSpooledReceipt(payload) }));
    const { signal } = this.requests;
    await this.schemas.upload(batch, signal);
    const { results } = await client.call('receipts.ingest', {
      params: { name: gateway },
      rawBody: ingestBody(batch),
      signal,
    });
    const shipped = await this.settle(batch, results);
    this.batchLimit = this.batchSize;
    return shipped;
  }

  /**
   * Acknowledges the longest prefix of the batch the API is done with: stored, or rejected for
   * good and quarantined first. Anything else stops the prefix and fails the shipment, so the
   * rest is retried in order.
   */
  private async settle(
    batch: ReadonlyArray<EncodedReceipt & { seq: number }>,
    results: ReadonlyArray<ReceiptIngestResult>,
  ): Promise<ShipResult> {
    const { spool, metrics, log } = this.options;
    const stored: ReceiptIngestResult[] = [];
    const quarantined: QuarantinedReceipt[] = [];
    let through: number | undefined;
    let stuck: string | undefined;
    const quarantinedAt = new Date().toISOString();
    for (const [index, item] of batch.entries()) {
      const id = item.id;
      const result = results[index];
      // An item the API could not read at all is reported with id "".
      const aligned = result?.id === id || (result?.result === 'rejected' && result.id === '');
      if (result === undefined || !aligned) {
        stuck = `the API answered ${results.length} results for ${batch.length} receipts`;
        break;
      }
      if (result.result === 'created' || result.result === 'duplicate') stored.push(result);
      else if (PERMANENT_REJECTIONS.has(result.reason ?? '')) {
        quarantined.push({
          quarantinedAt,
          seq: item.seq,
          reason: result.reason ?? 'Unknown',
          ...(result.message !== undefined ? { message: result.message } : {}),
          record: parseSpooledReceipt(item),
        });
      } else {
        stuck = `receipt "${id}" was rejected (${result.reason ?? 'no reason'}): ${result.message ?? ''}`;
        break;
      }
      through = item.seq;
    }
    await this.quarantine.add(quarantined);
    if (through !== undefined) await spool.ackThrough(through);
    for (const result of stored) metrics.shippedReceipts.inc({ result: result.result });
    for (const entry of quarantined) {
      metrics.receiptsRejected.inc({ reason: entry.reason });
      log.error(
        {
          receiptId: entry.record.receipt.id,
          seq: entry.seq,
          reason: entry.reason,
          error: entry.message,
          quarantine: this.quarantine.path,
        },
        'the API rejected a receipt for good; moved it to the quarantine file',
      );
    }
    if (stuck !== undefined) throw new ShipmentError(stuck);
    return { acknowledged: stored.length, quarantined: quarantined.length };
  }

  /** Counts and logs a failed shipment; returns how long to wait before the next one. */
  private failed(error: Error): number {
    const { metrics, log } = this.options;
    metrics.shipFailures.inc();
    const retryInMs = this.backoff.next();
    const status = error instanceof ApiError ? error.httpStatus : undefined;
    if (status === 413 && this.batchLimit > 1) this.batchLimit = Math.ceil(this.batchLimit / 2);
    const fields = { err: error, status, attempts: this.backoff.attempts, retryInMs };
    // 401/403/404 will not fix themselves: the gateway's token or name is wrong.
    if (status === 401 || status === 403 || status === 404) {
      log.error(fields, 'the API refuses this gateway’s receipts; check its token and name');
    } else log.warn(fields, 'receipt shipment failed; receipts stay spooled, retrying');
    return retryInMs;
  }

  private updateGauges(): void {
    const { depth, dropped } = this.options.spool.stats();
    this.options.metrics.spoolDepth.set(depth);
    this.options.metrics.spoolDropped.set(dropped);
  }
}
