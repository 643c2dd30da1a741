import { join } from 'node:path';
import { type ApiClient, ApiError, type ReceiptIngestResult } from '@toolgate/contract';
import type { ReceiptChainStatus, ReceiptQuarantineStatus } from '@toolgate/core';
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
import { linkStandIn, refusalReason, refusesContent } from './stand-in.ts';

export interface ReceiptShipperOptions {
  gateway: string;
  spool: Spool<SpooledReceipt>;
  /** The API, holding this gateway's token. */
  client: ApiClient;
  /** Data directory: `rejected-receipts.ndjson` is written here. */
  dir: string;
  metrics: Pick<
    GatewayMetrics,
    | 'spoolDepth'
    | 'spoolDropped'
    | 'shippedReceipts'
    | 'shipFailures'
    | 'receiptsQuarantined'
    | 'quarantinedReceipts'
  >;
  log: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** A batch ships as soon as this many receipts are pending (≤ 1000). Default 500. */
  batchSize?: number;
  /**
   * Largest ingest body sent, in bytes (at most the API's body limit). Batches are cut to fit;
   * a receipt that does not fit alone is quarantined without being sent. Default 8 MiB.
   */
  maxBatchBytes?: number;
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
  /** Refused for good, written to the quarantine file, then acknowledged. */
  quarantined: number;
}

/** A spooled record as shipped: its spool sequence number and what it holds. */
type ShippedRecord = EncodedReceipt & { seq: number };

/** A record the API refused for good, and how. */
interface Refusal {
  item: ShippedRecord;
  reason: string;
  message?: string;
}

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
 * only after the API answered `created` or `duplicate` for it — or refused it for good, in which
 * case it is first written to a quarantine file and a stand-in takes its place in the API's
 * chain, so the receipts after it are stored as usual. One bad receipt never holds up the queue:
 *
 * - the API rejects it in the batch's results (`Invalid`, `HashMismatch`, `Conflict`, …): it is
 *   quarantined, its stand-in linked, and the rest of the batch shipped again behind it;
 * - the API refuses the whole batch as malformed, too large or invalid (400, 413, 422): the batch
 *   is split in halves until the receipt at fault ships alone, and that one is quarantined (a
 *   batch too large only as a whole just ships in smaller pieces);
 * - `ChainBroken` (the receipt does not continue the API's chain: a fork, which no stand-in can
 *   bridge): quarantined with the rest of the batch's broken run.
 *
 * Transport failures, 5xx, 408, 429 and 401/403/404 are retried with backoff and acknowledge
 * nothing; ingest is idempotent on receipt id, so a batch whose answer was lost comes back as
 * duplicates, never as second copies.
 */
export class ReceiptShipper {
  private readonly stopping = new AbortController();
  /** Aborted only when a stopping batch overruns its grace period. */
  private readonly requests = new AbortController();
  private readonly backoff: Backoff;
  private readonly schemas: SchemaUploader;
  private readonly quarantine: Quarantine;
  /** What `chainHead()` reports; unknown until a receipt ships in this process. */
  private head: ReceiptChainStatus | undefined;
  private readonly batchSize: number;
  private readonly intervalMs: number;
  private readonly pollMs: number;
  private readonly maxBatchBytes: number;
  /** Below `batchSize` while a batch the API refused whole is being split. */
  private batchLimit: number;
  /** The last spool seq of the batch being split: past it, batches are full size again. */
  private splitThrough: number | undefined;
  /** Shipments run one at a time — the loop's and `flush()`'s alike — so order holds. */
  private lock: Promise<unknown> = Promise.resolve();
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly options: ReceiptShipperOptions) {
    this.batchSize = Math.min(1000, Math.max(1, options.batchSize ?? 500));
    this.batchLimit = this.batchSize;
    this.intervalMs = options.intervalMs ?? 1000;
    this.pollMs = options.pollMs ?? 100;
    this.maxBatchBytes = options.maxBatchBytes ?? 8 * 1024 * 1024;
    this.backoff = new Backoff(options.backoff);
    this.schemas = new SchemaUploader({
      client: options.client,
      log: options.log,
      ...(options.schemaMemory !== undefined ? { remember: options.schemaMemory } : {}),
    });
    this.quarantine = new Quarantine(join(options.dir, 'rejected-receipts.ndjson'));
  }

  /** The file receipts refused for good are moved to. */
  get quarantinePath(): string {
    return this.quarantine.path;
  }

  /** What the quarantine file holds, for `Gateway.status` (empty until it was read). */
  quarantineSummary(): ReceiptQuarantineStatus {
    return this.quarantine.summary();
  }

  /**
   * The newest receipt the API acknowledged into this gateway's chain (stored, or linked as a
   * stand-in) since this process started, for `Gateway.status`: verify reports a stored chain
   * that no longer reaches it as cut short.
   */
  chainHead(): ReceiptChainStatus | undefined {
    return this.head;
  }

  start(): void {
    if (this.stopping.signal.aborted) throw new Error('ReceiptShipper was stopped');
    this.loop ??= this.run();
  }

  /** Reads the quarantine file (count and newest entries); shipping does this by itself too. */
  async loadQuarantine(): Promise<void> {
    await this.quarantine.load();
    this.updateGauges();
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

  /**
   * Ships the oldest pending receipts once: the batch, or (while one is split) its first half.
   * Throws when the batch must be retried.
   */
  private async shipBatch(): Promise<ShipResult> {
    const { spool, client, gateway, log } = this.options;
    await this.quarantine.load();
    for (;;) {
      if (this.requests.signal.aborted) throw new ShipmentError('the shipper was stopped');
      const pending = await spool.pendingEncoded(this.batchLimit);
      if (pending.length === 0) return { acknowledged: 0, quarantined: 0 };
      const decoded = pending.map(({ seq, payload }) => ({
        seq,
        ...decodeSpooledReceipt(payload),
      }));
      const batch = this.fitting(decoded);
      if (batch.length === 0) {
        // Bigger than any body the API takes: refusing it here saves sending megabytes for a
        // 413 that a proxy in between may not even pass back.
        const [first] = decoded as [ShippedRecord];
        const bytes = ingestBytes(first);
        const message = `the receipt's ingest body is about ${bytes} bytes; at most ${this.maxBatchBytes} are sent (SHIP_MAX_BATCH_BYTES)`;
        const refusal = { item: first, reason: 'RequestEntityTooLarge', message };
        return await this.settleRefusals([refusal], first.seq, []);
      }
      const { signal } = this.requests;
      await this.schemas.upload(batch, signal);
      let results: ReceiptIngestResult[];
      try {
        ({ results } = await client.call('receipts.ingest', {
          params: { name: gateway },
          rawBody: ingestBody(batch),
          signal,
        }));
      } catch (error) {
        if (!refusesContent(error)) throw error;
        const [first] = batch as [ShippedRecord, ...ShippedRecord[]];
        if (batch.length === 1) {
          const refusal = { item: first, reason: refusalReason(error), message: error.message };
          const shipped = await this.settleRefusals([refusal], first.seq, []);
          this.splitDone();
          return shipped;
        }
        const last = batch[batch.length - 1] as ShippedRecord;
        this.batchLimit = Math.ceil(batch.length / 2);
        this.splitThrough = Math.max(this.splitThrough ?? 0, last.seq);
        log.warn(
          { status: error.httpStatus, reason: error.status.reason, receipts: batch.length },
          'the API refused a batch of receipts as a whole; shipping it in halves to find the bad one',
        );
        continue;
      }
      const shipped = await this.settle(batch, results);
      // Past a refusal, or past the batch that was split (all of it stored): full size again.
      const last = batch[batch.length - 1] as ShippedRecord;
      if (shipped.quarantined > 0 || last.seq >= (this.splitThrough ?? Number.POSITIVE_INFINITY)) {
        this.splitDone();
      }
      return shipped;
    }
  }

  /** The longest prefix whose ingest body stays within `maxBatchBytes` (maybe none). */
  private fitting(records: ShippedRecord[]): ShippedRecord[] {
    // `{"receipts":[…],"tool_sets":{…}}`: 32 bytes of frame, a comma per receipt.
    let total = 32;
    for (const [index, record] of records.entries()) {
      total += ingestBytes(record) + 1;
      if (total > this.maxBatchBytes) return records.slice(0, index);
    }
    return records;
  }

  /** The newest of `acknowledged` (in chain order) becomes the reported chain head. */
  private advanceHead(acknowledged: ReadonlyArray<ShippedRecord>): void {
    let newest: ShippedRecord | undefined;
    for (const record of acknowledged) if (!newest || record.seq > newest.seq) newest = record;
    if (newest === undefined) return;
    this.head = {
      head: { id: newest.id, hash: newest.hash },
      acknowledgedAt: new Date().toISOString(),
    };
  }

  private splitDone(): void {
    this.batchLimit = this.batchSize;
    this.splitThrough = undefined;
  }

  /**
   * Acknowledges the longest prefix of the batch the API is done with: stored, or refused for
   * good and quarantined first. After a refusal that a stand-in can take the place of, the
   * prefix ends (the rest, which the API rejected as `ChainBroken` behind it, ships again once
   * the stand-in is linked). Anything else stops the prefix and fails the shipment, so the
   * rest is retried in order.
   */
  private async settle(
    batch: ReadonlyArray<ShippedRecord>,
    results: ReadonlyArray<ReceiptIngestResult>,
  ): Promise<ShipResult> {
    const stored: ReceiptIngestResult[] = [];
    const storedItems: ShippedRecord[] = [];
    const refused: Refusal[] = [];
    let through: number | undefined;
    let stuck: string | undefined;
    for (const [index, item] of batch.entries()) {
      const result = results[index];
      // An item the API could not read at all is reported with id "".
      const aligned = result?.id === item.id || (result?.result === 'rejected' && result.id === '');
      if (result === undefined || !aligned) {
        stuck = `the API answered ${results.length} results for ${batch.length} receipts`;
        break;
      }
      through = item.seq;
      if (result.result === 'created' || result.result === 'duplicate') {
        stored.push(result);
        storedItems.push(item);
        continue;
      }
      const reason = result.reason ?? 'Rejected';
      refused.push({ item, reason, ...(result.message ? { message: result.message } : {}) });
      if (reason !== 'ChainBroken') break;
    }
    const shipped = await this.settleRefusals(refused, through, stored, storedItems);
    if (stuck !== undefined) throw new ShipmentError(stuck);
    return shipped;
  }

  /**
   * Quarantines what the API refused (durably, before anything is acknowledged), links a
   * stand-in for each refusal that is not a broken chain, then acknowledges through `through`.
   * When a stand-in cannot be shipped now (the API unreachable), this throws and nothing is
   * acknowledged: the records ship, are refused and are quarantined again (the file keeps one
   * entry each).
   */
  private async settleRefusals(
    refused: ReadonlyArray<Refusal>,
    through: number | undefined,
    stored: ReadonlyArray<ReceiptIngestResult>,
    storedItems: ReadonlyArray<ShippedRecord> = [],
  ): Promise<ShipResult> {
    const { spool, metrics, log } = this.options;
    const quarantinedAt = new Date().toISOString();
    const entries = refused.map(({ item, reason, message }) => ({
      quarantinedAt,
      seq: item.seq,
      reason,
      ...(message !== undefined ? { message } : {}),
      bytes: recordBytes(item),
      record: parseSpooledReceipt(item),
    }));
    const written = await this.quarantine.add(entries);
    const linked: ShippedRecord[] = [];
    for (const [index, refusal] of refused.entries()) {
      if (refusal.reason === 'ChainBroken') continue;
      const entry = entries[index] as QuarantinedReceipt;
      const { client, gateway, log } = this.options;
      const signal = this.requests.signal;
      if (await linkStandIn({ client, gateway, log, signal }, refusal.item, entry)) {
        linked.push(refusal.item);
      }
    }
    if (through !== undefined) {
      await spool.ackThrough(through);
      this.advanceHead([...storedItems, ...linked]);
    }
    for (const result of stored) metrics.shippedReceipts.inc({ result: result.result });
    for (const entry of written) {
      metrics.receiptsQuarantined.inc({ reason: entry.reason });
      log.error(
        {
          receiptId: entry.record.receipt.id,
          seq: entry.seq,
          reason: entry.reason,
          error: entry.message,
          bytes: entry.bytes,
          quarantine: this.quarantine.path,
        },
        'the API refused a receipt for good; moved it to the quarantine file',
      );
    }
    this.updateGauges();
    return { acknowledged: stored.length, quarantined: refused.length };
  }

  /** Counts and logs a failed shipment; returns how long to wait before the next one. */
  private failed(error: Error): number {
    const { metrics, log } = this.options;
    metrics.shipFailures.inc();
    const retryInMs = this.backoff.next();
    const status = error instanceof ApiError ? error.httpStatus : undefined;
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
    this.options.metrics.quarantinedReceipts.set(this.quarantine.count);
  }
}

/** The record's size as spooled (near enough: the layout adds a few dozen bytes). */
function recordBytes(record: EncodedReceipt): number {
  return ingestBytes(record) + Buffer.byteLength(JSON.stringify(record.schemas));
}

/** What the record adds to an ingest body: its receipt and the tool sets it carries. */
function ingestBytes(record: EncodedReceipt): number {
  return record.receiptJson.length + Buffer.byteLength(JSON.stringify(record.toolSets));
}
