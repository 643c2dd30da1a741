import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import {
  boundedText,
  type ProviderErrorDetails,
  type ProviderSurface,
  type ResponseEvidence,
  scrubSecrets,
} from '@toolgate/core';
import type { GatewayMetrics } from '../metrics.ts';
import type { ReleasedCalls } from '../receipts/released-calls.ts';
import { failureClass } from '../tracing/request-trace.ts';
import { sendJson } from './agent-http.ts';
import { providerErrorJson, upstreamFailure } from './provider-errors.ts';
import type { Finished, Recorded, RequestReceipts, RequestRecord } from './request-receipts.ts';

/** The response header naming the request's receipt. */
export const RECEIPT_HEADER = 'x-toolgate-receipt-id';

/** The gateway's own error messages quote at most this much. */
const MAX_ERROR_MESSAGE = 1024;

/**
 * How the mediating proxy answers its agent once a request is decided: the receipt spooled
 * first, then the answer (or, when the spool refuses, a provider-style error), the metrics
 * counted, and the released calls timed for the next turn's receipt.
 */
export class AgentAnswers {
  constructor(
    private readonly deps: {
      metrics: GatewayMetrics;
      receipts: RequestReceipts;
      /** When each allowed call reached its agent: times its result in the next turn's receipt. */
      released: ReleasedCalls;
      now: () => number;
    },
  ) {}

  /** Spools the receipt, then answers `payload` with the finished request's status. */
  async json(
    record: RequestRecord,
    reply: ServerResponse,
    payload: string | Buffer,
    finished: Finished,
  ): Promise<void> {
    const recorded = await this.record(record, finished);
    if (!recorded.ok) {
      const headers: Record<string, string> = recorded.receipt
        ? { [RECEIPT_HEADER]: record.id }
        : {};
      return this.refuse(reply, record.surface, recorded.status, recorded.message, { headers });
    }
    const { status } = finished;
    const headers = finished.headers ?? {};
    headers[RECEIPT_HEADER] = record.id;
    sendJson(reply, status, payload, headers);
    this.deps.metrics.requests.inc({ surface: record.surface, status: String(status) });
    this.release(finished.evidence);
  }

  /**
   * Spools the receipt (its span, when traced, times it). Untraced, the spool's own promise is
   * returned: no async frame of its own on every request.
   */
  record(record: RequestRecord, finished: Finished): Promise<Recorded> {
    const { trace } = record;
    if (trace === undefined) return this.deps.receipts.record(record, finished);
    const started = performance.now();
    return this.deps.receipts.record(record, finished).then((recorded) => {
      trace.receipt(started, recorded.ok);
      return recorded;
    });
  }

  /** The provider could not be reached, or failed before answering: a provider-style error. */
  upstreamFailure(record: RequestRecord, reply: ServerResponse, error: unknown): Promise<void> {
    const { status, message } = upstreamFailure(error);
    record.trace?.upstreamEnded(status === 504 ? 'timeout' : failureClass(error));
    return this.json(record, reply, providerErrorJson(record.surface, status, message), {
      status,
      error: message,
      upstreamMs: performance.now() - record.sentAt,
    });
  }

  /**
   * Answers an error of the gateway's own, in the provider's format. The message may quote the
   * agent's input (a JSON parse error does): it is scrubbed and bounded like anything else that
   * leaves the process.
   */
  refuse(
    reply: ServerResponse,
    surface: ProviderSurface,
    status: number,
    message: string,
    extra: { details?: ProviderErrorDetails; headers?: Record<string, string> } = {},
  ): void {
    this.deps.metrics.requests.inc({ surface, status: String(status) });
    const safe = scrubSecrets(boundedText(message, MAX_ERROR_MESSAGE));
    sendJson(reply, status, providerErrorJson(surface, status, safe, extra.details), extra.headers);
  }

  countBlocked(surface: ProviderSurface, evidence: ResponseEvidence): void {
    let blocked = 0;
    for (const call of evidence.tool_calls) {
      if (call.policy_state === 'allowed') continue;
      blocked++;
      const { decision } = call;
      if (decision?.rule !== undefined) {
        this.deps.metrics.withheldCalls.inc({ outcome: decision.outcome, rule: decision.rule });
      }
    }
    if (blocked > 0) this.deps.metrics.blockedCalls.inc({ surface }, blocked);
  }

  /** The allowed calls of `evidence` reached the agent now. */
  release(evidence: ResponseEvidence | undefined): void {
    this.deps.released.release(evidence, this.deps.now());
  }
}
