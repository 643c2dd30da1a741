import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import {
  type BindableIdentity,
  bindIdentity,
  createStreamMediator,
  enforceResponseBody,
  holdActionableTail,
  jsonObjectUtf8,
  type MediationResult,
  mediateRequest,
  type ProviderSurface,
  type ReceiptIdentity,
  RequestParser,
  sanitizeProviderError,
  scrubSecrets,
  UnsupportedRequestError,
  ValidationError,
} from '@toolgate/core';
import type { Logger } from 'pino';
import type { BundleStore } from '../bundle/bundle-store.ts';
import type { CallGates } from '../calls/call-gates.ts';
import type { HostedExecutorRegistry } from '../hosted/executor-registry.ts';
import { type LoopProviderCall, ToolLoop } from '../hosted/tool-loop.ts';
import type { GatewayMetrics } from '../metrics.ts';
import { ReceiptRecorder, type ReceiptSink } from '../receipts/receipt-recorder.ts';
import { ReleasedCalls } from '../receipts/released-calls.ts';
import type { GatewayTracing } from '../tracing/gateway-tracing.ts';
import { type RequestTrace, streamFailure } from '../tracing/request-trace.ts';
import { AgentAnswers, RECEIPT_HEADER } from './agent-answers.ts';
import { type AgentBody, readBody, UnreadableBodyError } from './agent-http.ts';
import { readAgentIdentity, UnreadableIdentityError } from './agent-identity.ts';
import { AnswerJson } from './answer-json.ts';
import { type GeminiRoute, readGeminiRoute } from './gemini-route.ts';
import {
  errorMessage,
  passedHeaders,
  providerErrorJson,
  upstreamFailure,
} from './provider-errors.ts';
import {
  type Finished,
  RequestReceipts,
  type RequestRecord,
  SPOOL_FULL,
} from './request-receipts.ts';
import { relayStream, streamErrorEvent } from './stream-relay.ts';
import type { Upstreams } from './upstream.ts';
import type { UpstreamAnswer } from './upstream-answer.ts';

export { RECEIPT_HEADER } from './agent-answers.ts';

export interface ProxyDependencies {
  gateway: string;
  bundles: BundleStore;
  upstreams: Upstreams;
  recorder: ReceiptSink;
  metrics: GatewayMetrics;
  log: Logger;
  /** Largest request body accepted, in bytes; larger ones get a 413. */
  bodyLimit: number;
  /** Injected clock (tests); wall time by default. */
  now?: () => number;
  /** Approvals and rate-limit buckets for call-time rules; absent: none known, no limits. */
  calls?: CallGates;
  /** Spans of each request (docs/observability.md); absent (tracing off): none at all. */
  tracing?: GatewayTracing;
  /**
   * Executors of HostedTool resources for the tool loop (docs/hosted-tools.md); absent: a
   * HostedTool's calls are answered `unavailable` (`tool_info` is built in).
   */
  hostedExecutors?: HostedExecutorRegistry;
}

class IdentityRejected extends Error {}

/**
 * One agent request through the gateway: bind the identity, mediate the tools by the active
 * bundle, forward to the provider, enforce the response (JSON or SSE; streamed tool calls are
 * held until complete), and spool the receipt durably before the agent's response completes.
 */
export class MediatingProxy {
  private readonly now: () => number;
  /** Parses requests, reusing the work for tool lists seen before (agents resend them). */
  private readonly parser = new RequestParser();
  /** Reads and writes back JSON answers (a Responses answer's echoed tools reused). */
  private readonly answers = new AnswerJson();
  private readonly receipts: RequestReceipts;
  /** Spools each receipt and answers the agent (agent-answers.ts). */
  private readonly respond: AgentAnswers;

  constructor(private readonly deps: ProxyDependencies) {
    this.now = deps.now ?? Date.now;
    // When each allowed call reached its agent: times its result in the next turn's receipt.
    const released = new ReleasedCalls();
    this.receipts = new RequestReceipts({ ...deps, now: this.now, released });
    this.respond = new AgentAnswers({
      metrics: deps.metrics,
      receipts: this.receipts,
      released,
      now: this.now,
    });
  }

  /**
   * Serves one agent request to the end. Never rejects: a failure of the gateway itself is a
   * provider-style 500 (or, once the answer has started, a cut connection) and a log line.
   */
  async handle(
    surface: ProviderSurface,
    request: IncomingMessage,
    reply: ServerResponse,
  ): Promise<void> {
    const trace = this.deps.tracing?.request(surface, request);
    try {
      await this.serve(surface, request, reply, trace);
    } catch (error) {
      this.deps.log.error({ err: error }, 'gateway request failed');
      trace?.outcome(500, 'gateway_error');
      if (reply.headersSent) reply.destroy();
      else this.respond.refuse(reply, surface, 500, 'gateway error');
    }
    trace?.end(reply.statusCode);
  }

  private async serve(
    surface: ProviderSurface,
    request: IncomingMessage,
    reply: ServerResponse,
    trace: RequestTrace | undefined,
  ): Promise<void> {
    const receivedAt = this.now();
    const started = performance.now();
    let route: GeminiRoute | undefined;
    if (surface === 'gemini') {
      // The model and the stream flag are in the URL: read (and refused) before the body.
      const read = readGeminiRoute(request.url ?? '');
      if (!read.ok) return this.respond.refuse(reply, surface, read.status, read.message);
      route = read.route;
    }
    let received: AgentBody;
    try {
      received = await readBody(request, this.deps.bodyLimit);
    } catch (error) {
      if (!(error instanceof UnreadableBodyError)) throw error;
      return this.respond.refuse(reply, surface, error.status, error.message);
    }
    // Mediation is timed from here: reading the body is the agent's upload, not Toolgate's work.
    const mediationStarted = performance.now();
    const { metrics } = this.deps;
    const active = this.deps.bundles.current();
    if (!active)
      return this.respond.refuse(
        reply,
        surface,
        503,
        'gateway not ready: no valid policy bundle yet',
      );
    if (this.deps.recorder.full()) {
      metrics.spoolRejected.inc();
      return this.respond.refuse(reply, surface, 503, SPOOL_FULL);
    }
    let body: unknown;
    let illFormed: string | undefined;
    try {
      // Everything the receipt will hold is checked before the provider sees the request:
      // canonical JSON, the receipt's hash and PostgreSQL cannot take a lone surrogate (one regex
      // scan of the text, outside a known tool list, when there is none); the engine bounds the
      // rest (RECEIPT_LIMITS).
      ({ body, illFormedPath: illFormed } = this.parser.parseRequest(received.text));
    } catch (error) {
      return this.respond.refuse(
        reply,
        surface,
        400,
        `malformed JSON body: ${(error as Error).message}`,
      );
    }
    if (illFormed !== undefined) {
      return this.respond.refuse(reply, surface, 400, `${illFormed}: ${LONE_SURROGATE}`);
    }
    let mediation: MediationResult;
    let identity: ReceiptIdentity;
    // Known before mediation: an approval a call asks for names the receipt of its request.
    const receiptId = ReceiptRecorder.newId(receivedAt);
    try {
      const agent = readAgentIdentity(request);
      const bound = bindIdentity(
        agent.claims,
        active.bundle.identities as ReadonlyArray<BindableIdentity>,
        active.compiled,
        agent.token === undefined ? undefined : { secret: agent.token, now: receivedAt },
      );
      identity = bound.receipt;
      if (identity.binding === 'rejected')
        throw new IdentityRejected(
          "identity not proven: request refused by policy (send the agent's Toolgate token)",
        );
      const gate =
        active.compiled.callRules.length > 0
          ? this.deps.calls?.forRequest({ receiptId, surface, identity })
          : undefined;
      mediation = mediateRequest(active.compiled, {
        surface,
        body,
        identity: bound.rules,
        ...(gate ? { gate } : {}),
        ...(route ? { target: { model: route.model, stream: route.stream } } : {}),
      });
    } catch (error) {
      if (error instanceof ValidationError) {
        const details =
          error instanceof UnsupportedRequestError ? error.providerDetails : undefined;
        return this.respond.refuse(reply, surface, 400, error.message, details ? { details } : {});
      }
      if (error instanceof UnreadableIdentityError)
        return this.respond.refuse(reply, surface, 400, error.message);
      if (error instanceof IdentityRejected)
        return this.respond.refuse(reply, surface, 403, error.message);
      if (isTooDeep(error)) return this.respond.refuse(reply, surface, 400, TOO_DEEP);
      throw error;
    }
    // Bytes, so the tool list's encoding is reused (jsonObjectUtf8) and an unchanged request
    // goes on exactly as received.
    let outgoing: Buffer;
    try {
      outgoing = mediation.changed ? Buffer.concat(jsonObjectUtf8(mediation.body)) : received.bytes;
    } catch (error) {
      if (isTooDeep(error)) return this.respond.refuse(reply, surface, 400, TOO_DEEP);
      throw error;
    }
    const sentAt = performance.now();
    const mediationMs = sentAt - mediationStarted;
    let traceHeaders: Record<string, string> | undefined;
    if (trace) {
      trace.mediated({
        mediation,
        body,
        identity,
        receiptId,
        bundleEtag: active.etag,
        startedAt: mediationStarted,
        endedAt: sentAt,
      });
      const target = this.deps.upstreams.target(surface, route);
      traceHeaders = trace.upstream(target.origin, target.path);
    }
    // The provider gets the request first; the receipt's bookkeeping runs while it works.
    const send = (bytes: Buffer) =>
      this.deps.upstreams.send(surface, bytes, request.headers, route, traceHeaders);
    // Gateway-hosted tools offered: the tool loop stands in for the provider call.
    const loop = mediation.hosted
      ? new ToolLoop({
          surface,
          plan: mediation.hosted,
          body: mediation.body,
          bytes: outgoing,
          stream: mediation.stream,
          send,
          ...(this.deps.hostedExecutors ? { executors: this.deps.hostedExecutors } : {}),
          redact: active.compiled.redact,
          startedAt: started,
          ...(traceHeaders?.traceparent ? { traceparent: traceHeaders.traceparent } : {}),
        })
      : undefined;
    const call: LoopProviderCall = loop ?? send(outgoing);
    reply.on('close', () => {
      if (!reply.writableFinished) call.abort();
    });
    const record: RequestRecord = {
      id: receiptId,
      surface,
      receivedAt,
      started,
      active,
      identity,
      mediation,
      mediationMs,
      sentAt,
    };
    if (trace) record.trace = trace;
    if (loop) record.hosted = loop;
    this.receipts.draft(record);
    metrics.mediationSeconds.observe({ surface }, mediationMs / 1000);
    if (mediation.stream) await this.forwardStream(record, call, reply);
    else await this.forwardJson(record, call, reply);
  }

  /** Non-streaming: read the provider's answer, enforce it, spool the receipt, answer. */
  private async forwardJson(
    record: RequestRecord,
    call: LoopProviderCall,
    reply: ServerResponse,
  ): Promise<void> {
    const { surface, trace } = record;
    let payload: string | Buffer;
    let finished: Finished;
    try {
      const response = await call.answer;
      trace?.answered(response.statusCode, false);
      const text = await response.body.text();
      trace?.upstreamEnded();
      const upstreamMs = performance.now() - record.sentAt;
      const headers = passedHeaders(response.headers, {});
      const status = response.statusCode;
      if (status >= 400) {
        payload = sanitizeProviderError(surface, status, text);
        finished = { status, headers, error: scrubSecrets(errorMessage(text)), upstreamMs };
      } else {
        const parsed = this.answers.parse(surface, text);
        if (parsed === undefined) {
          const error = 'upstream answered with malformed JSON';
          payload = providerErrorJson(surface, 502, error);
          finished = { status: 502, headers, error, upstreamMs };
        } else {
          const enforced = enforceResponseBody(parsed, record.mediation.response);
          this.respond.countBlocked(surface, enforced.evidence);
          if (trace) {
            trace.answer(parsed);
            trace.evidence(enforced.evidence);
          }
          payload = this.answers.payload(enforced.body);
          finished = { status, headers, evidence: enforced.evidence, upstreamMs };
        }
      }
    } catch (error) {
      return this.respond.upstreamFailure(record, reply, error);
    }
    await this.respond.json(record, reply, payload, finished);
    // Counted once the agent has its answer: off the path to it.
    this.deps.metrics.upstreamSeconds.observe({ surface }, finished.upstreamMs / 1000);
  }

  /**
   * Streaming: text deltas reach the agent as they arrive; tool calls are held by the stream
   * mediator until complete. The receipt is spooled before the stream's last bytes go out.
   */
  private async forwardStream(
    record: RequestRecord,
    call: LoopProviderCall,
    reply: ServerResponse,
  ): Promise<void> {
    const { surface, trace } = record;
    let response: UpstreamAnswer;
    try {
      response = await call.answer;
    } catch (error) {
      return this.respond.upstreamFailure(record, reply, error);
    }
    const contentType = String(response.headers['content-type'] ?? '');
    const streamed = response.statusCode < 400 && contentType.includes('text/event-stream');
    const facts = trace?.answered(response.statusCode, streamed);
    if (!streamed) {
      const text = await response.body.text();
      trace?.upstreamEnded();
      const upstreamMs = performance.now() - record.sentAt;
      const headers = passedHeaders(response.headers, {});
      const error =
        response.statusCode >= 400 ? scrubSecrets(errorMessage(text)) : 'upstream did not stream';
      const status = response.statusCode >= 400 ? response.statusCode : 502;
      const payload =
        status === 502
          ? providerErrorJson(surface, 502, error)
          : sanitizeProviderError(surface, status, text);
      return this.respond.json(record, reply, payload, {
        status,
        headers,
        error,
        upstreamMs,
      });
    }

    reply.writeHead(
      200,
      passedHeaders(response.headers, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        [RECEIPT_HEADER]: record.id,
      }),
    );
    // Text deltas flow as they arrive; the first tool call, finish reason or end of turn, and
    // everything after it, waits until the receipt is durable.
    const mediator = holdActionableTail(createStreamMediator(record.mediation.response), surface);
    let error: string | undefined;
    let streamStatus = 200;
    let tail = '';
    const mediate = facts
      ? (chunk: Uint8Array) => {
          facts.push(chunk);
          return mediator.push(chunk);
        }
      : (chunk: Uint8Array) => mediator.push(chunk);
    try {
      await relayStream(response.body, reply, mediate);
      tail = mediator.end();
    } catch (cause) {
      // A stream cut mid-way: held tool calls are never released half-complete; the agent gets
      // a provider-style error event instead.
      const timedOut = upstreamFailure(cause).status === 504;
      streamStatus = call.aborted ? 499 : timedOut ? 504 : 502;
      error = call.aborted
        ? 'client disconnected'
        : timedOut
          ? 'upstream timed out mid-stream'
          : `upstream stream failed: ${(cause as Error).message}`;
      tail = streamErrorEvent(surface, error);
    }
    const upstreamMs = performance.now() - record.sentAt;
    this.deps.metrics.upstreamSeconds.observe({ surface }, upstreamMs / 1000);
    const evidence = mediator.evidence();
    this.respond.countBlocked(surface, evidence);
    if (trace) {
      trace.upstreamEnded(error === undefined ? undefined : streamFailure(streamStatus));
      trace.evidence(evidence);
    }
    const finished: Finished = {
      status: streamStatus,
      upstreamMs,
      evidence,
      ...(error ? { error } : {}),
    };
    const recorded = await this.respond.record(record, finished);
    let status = streamStatus;
    if (!recorded.ok) {
      // Headers are gone: the agent gets an error event in place of the held tail (no tool call,
      // no finish, no [DONE]), and the metrics never count this request a success.
      tail = streamErrorEvent(surface, recorded.message);
      status = recorded.status;
    }
    this.deps.metrics.requests.inc({ surface, status: String(status) });
    trace?.outcome(status, error === undefined ? undefined : streamFailure(streamStatus));
    if (!reply.destroyed) reply.end(tail);
    if (recorded.ok && !error && !reply.destroyed) this.respond.release(evidence);
  }
}

const TOO_DEEP = 'request body nests too deeply';
const LONE_SURROGATE = 'holds a lone UTF-16 surrogate (not valid Unicode text)';

/**
 * JSON.parse takes any depth, but walking the result (tool schemas, re-serializing a mediated
 * body) recurses: a body nested tens of thousands of levels deep is the agent's error, a 400,
 * not a 500. Catching the overflow costs nothing on the requests that do not cause one.
 */
function isTooDeep(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}
