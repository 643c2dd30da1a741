import type {
  HostedEvidence,
  MediationResult,
  ProviderSurface,
  ReceiptDraft,
  ReceiptEnd,
  ReceiptIdentity,
  ResponseEvidence,
} from '@toolgate/core';
import type { Logger } from 'pino';
import type { ActiveBundle } from '../bundle/bundle-store.ts';
import type { GatewayMetrics } from '../metrics.ts';
import {
  draftReceipt,
  type ReceiptSink,
  receiptInputOf,
  receiptTiming,
} from '../receipts/receipt-recorder.ts';
import type { ReleasedCalls } from '../receipts/released-calls.ts';
import { SpoolFailedError, SpoolFullError } from '../spool/errors.ts';
import type { RequestTrace } from '../tracing/request-trace.ts';

/** Everything a receipt needs about one request, filled in as the request goes. */
export interface RequestRecord {
  id: string;
  surface: ProviderSurface;
  receivedAt: number;
  started: number;
  active: ActiveBundle;
  identity: ReceiptIdentity;
  mediation: MediationResult;
  mediationMs: number;
  /** When the provider call was sent (performance.now()). */
  sentAt: number;
  /** The request's spans, when tracing is on. */
  trace?: RequestTrace;
  /** The tool loop, when the request offered gateway-hosted tools: its rounds go in the receipt. */
  hosted?: { evidence(): HostedEvidence | undefined };
  /** The receipt's request side, drafted while the provider works (`RequestReceipts.draft`). */
  draft?: ReceiptDraft;
}

export interface Finished {
  status: number;
  /** The provider's headers passed on to the agent. */
  headers?: Record<string, string | string[]>;
  error?: string;
  evidence?: ResponseEvidence;
  upstreamMs: number;
}

export const SPOOL_FULL = 'gateway receipt spool is full; retry later';
const NOT_RECORDED = 'gateway could not record this request';
const SPOOL_FAILED = 'gateway cannot record receipts right now';

/** Whether the receipt was recorded; if not, the error the agent gets, and whether an error receipt stands in. */
export type Recorded =
  | { ok: true }
  | { ok: false; status: number; message: string; receipt: boolean };
const RECORDED: Recorded = { ok: true };

export interface RequestReceiptsDependencies {
  gateway: string;
  recorder: ReceiptSink;
  metrics: Pick<GatewayMetrics, 'spoolRejected'>;
  log: Pick<Logger, 'error'>;
  now: () => number;
  released: ReleasedCalls;
}

/**
 * The receipt of one proxied request: built from what the proxy gathered (`RequestRecord`) and
 * how the request finished, spooled before the agent's answer completes. When the spool refuses
 * it, or the receipt cannot be built, it says what the agent gets instead.
 */
export class RequestReceipts {
  constructor(private readonly deps: RequestReceiptsDependencies) {}

  /**
   * Spools the request's receipt. When the spool refuses it, the agent must get an error
   * instead of the answer. When the receipt cannot even be built (a value it cannot hold got
   * past the checks: a bug, but the provider has been called), an error receipt takes its place,
   * so the forwarded request is still on record, and the agent gets an error too.
   */
  /**
   * Builds and serializes the receipt's request side now (call it once the provider has the
   * request: it works meanwhile), so that less is left between its answer and the agent's. A
   * draft that cannot be made is left out: `record` then builds the whole receipt, and says why
   * it cannot.
   */
  draft(record: RequestRecord): void {
    if (this.deps.recorder.drafts === false) return;
    const draft = draftReceipt(this.deps.gateway, record);
    if (draft) record.draft = draft;
  }

  async record(record: RequestRecord, finished: Finished): Promise<Recorded> {
    try {
      const { draft } = record;
      await this.deps.recorder.record(
        draft
          ? { id: record.id, draft, end: this.receiptEnd(record, finished) }
          : this.receiptInput(record, finished),
        record.mediation.schemas,
      );
      return RECORDED;
    } catch (error) {
      const refused = this.spoolRefusal(error, record);
      if (refused) return refused;
      this.deps.log.error(
        { err: error, receipt: record.id },
        'receipt could not be built; recording an error receipt in its place',
      );
    }
    try {
      await this.deps.recorder.record(this.errorReceiptInput(record, finished), new Map());
      return { ok: false, status: 500, message: NOT_RECORDED, receipt: true };
    } catch (error) {
      const refused = this.spoolRefusal(error, record);
      if (refused) return refused;
      this.deps.log.error({ err: error, receipt: record.id }, 'error receipt could not be built');
      return { ok: false, status: 500, message: NOT_RECORDED, receipt: false };
    }
  }

  /** What the agent gets when the spool refused a receipt; undefined for any other error. */
  private spoolRefusal(error: unknown, record: RequestRecord): Recorded | undefined {
    if (error instanceof SpoolFailedError) {
      // A write or fsync failed (the spool stopped): answer without a receipt? Never.
      this.deps.log.error({ err: error, receipt: record.id }, 'receipt could not be spooled');
      return { ok: false, status: 503, message: SPOOL_FAILED, receipt: false };
    }
    if (error instanceof SpoolFullError) {
      this.deps.metrics.spoolRejected.inc();
      return { ok: false, status: 503, message: SPOOL_FULL, receipt: false };
    }
    return undefined;
  }

  /**
   * A receipt holding only what the gateway itself decided (no tools, no response evidence):
   * outcome 500, saying the full receipt failed.
   */
  private errorReceiptInput(record: RequestRecord, finished: Finished) {
    const { mediation } = record;
    return {
      ...this.receiptInput(record, { upstreamMs: finished.upstreamMs, status: 500 }),
      mediation: {
        model: mediation.model,
        stream: mediation.stream,
        tools: [],
        policies: mediation.policies,
        response: mediation.response,
      },
      outcome: { status: 500, error: `${NOT_RECORDED} (provider status ${finished.status})` },
    };
  }

  private receiptInput(record: RequestRecord, finished: Finished) {
    return receiptInputOf(this.deps.gateway, record, this.receiptEnd(record, finished));
  }

  /** How the request ended, as its receipt records it. */
  private receiptEnd(record: RequestRecord, finished: Finished): ReceiptEnd {
    const hosted = record.hosted?.evidence();
    const end: ReceiptEnd = {
      ...receiptTiming(this.deps.now(), record, finished.upstreamMs),
      outcome: finished.error
        ? { status: finished.status, error: finished.error }
        : { status: finished.status },
      toolResults: this.deps.released.elapsed(record.mediation.toolResults, record.receivedAt),
      ...(hosted ? { hosted } : {}),
    };
    if (finished.evidence) end.response = finished.evidence;
    return end;
  }
}
