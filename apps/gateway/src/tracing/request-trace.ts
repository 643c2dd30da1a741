import type { IncomingMessage } from 'node:http';
import { type Span, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';
import type {
  MediationResult,
  ProviderSurface,
  ReceiptIdentity,
  ResponseEvidence,
} from '@toolgate/core';
import { childOf, remoteParent, traceHeaders } from '@toolgate/telemetry';
import { GEN_AI, operationOf, requestParameters, surfaceAttributes } from './gen-ai.ts';
import {
  factAttributes,
  type ResponseFacts,
  readAnswer,
  type StreamFacts,
  streamFacts,
} from './response-facts.ts';
import {
  addEvidenceEvents,
  identityAttributes,
  mediationAttributes,
  safeText,
} from './tool-events.ts';

/** The route of each surface, as `http.route` (Gemini's names the model: its template). */
const ROUTES: Record<ProviderSurface, string> = {
  'openai-chat': '/v1/chat/completions',
  'openai-responses': '/v1/responses',
  'anthropic-messages': '/v1/messages',
  gemini: '/{version}/models/{model}:{method}',
};

/** What the mediation span says, gathered by the proxy as it goes. */
export interface MediatedRequest {
  mediation: MediationResult;
  body: unknown;
  identity: ReceiptIdentity;
  receiptId: string;
  bundleEtag: string;
  /** performance.now() when mediation started and when the request went upstream. */
  startedAt: number;
  endedAt: number;
}

/**
 * The spans of one agent request through the gateway: the request's span (SERVER, named
 * `{operation} {model}` as the GenAI conventions name an inference, carrying the `gen_ai.*`
 * attributes, its parent the agent's `traceparent` if it sent one), and its children: the
 * mediation (INTERNAL, with the rules that changed the tool list), the provider call (CLIENT, whose context the provider gets as
 * `traceparent`) and the receipt's spooling (INTERNAL). Tool calls are events of the request's
 * span with their decisions. Only created when tracing is on: the proxy holds none otherwise.
 */
export class RequestTrace {
  private readonly span: Span;
  private upstreamSpan: Span | undefined;
  private upstreamStartedAt = 0;
  private stream: StreamFacts | undefined;
  private status: number | undefined;
  private failure: string | undefined;

  constructor(
    private readonly tracer: Tracer,
    private readonly surface: ProviderSurface,
    request: IncomingMessage,
    gateway: string,
  ) {
    const path = pathOf(request.url ?? '');
    this.span = tracer.startSpan(
      operationOf(surface),
      {
        kind: SpanKind.SERVER,
        attributes: {
          ...surfaceAttributes(surface),
          [ATTR_HTTP_REQUEST_METHOD]: 'POST',
          [ATTR_HTTP_ROUTE]: ROUTES[surface],
          // The path only: a query may hold a key (Gemini's `?key=`).
          [ATTR_URL_PATH]: safeText(path),
          'toolgate.gateway': gateway,
          'toolgate.surface': surface,
        },
      },
      remoteParent(request.headers),
    );
  }

  /** Mediation is done: the model, the request's settings, and what the policy changed. */
  mediated(request: MediatedRequest): void {
    const { mediation } = request;
    const model = safeText(mediation.model);
    if (model !== '') this.span.updateName(`${operationOf(this.surface)} ${model}`);
    this.span.setAttributes({
      [GEN_AI.requestModel]: model,
      [GEN_AI.requestStream]: mediation.stream,
      ...requestParameters(this.surface, request.body),
      ...identityAttributes(request.identity),
      'toolgate.receipt.id': request.receiptId,
      'toolgate.bundle.etag': request.bundleEtag,
    });
    const span = this.tracer.startSpan(
      'toolgate.mediate',
      {
        kind: SpanKind.INTERNAL,
        startTime: request.startedAt,
        attributes: mediationAttributes(mediation),
      },
      childOf(this.span),
    );
    span.end(request.endedAt);
  }

  /**
   * The provider call starts: its span, and the `traceparent` (and `tracestate`) naming it, for
   * the request's headers.
   */
  upstream(target: URL, path: string): Record<string, string> {
    this.upstreamStartedAt = performance.now();
    const port =
      target.port === '' ? (target.protocol === 'https:' ? 443 : 80) : Number(target.port);
    this.upstreamSpan = this.tracer.startSpan(
      'POST',
      {
        kind: SpanKind.CLIENT,
        startTime: this.upstreamStartedAt,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: 'POST',
          [ATTR_SERVER_ADDRESS]: target.hostname,
          [ATTR_SERVER_PORT]: port,
          // The gateway never puts a key in a provider URL (it goes as a header).
          [ATTR_URL_FULL]: safeText(`${target.origin}${path}`),
        },
      },
      childOf(this.span),
    );
    return traceHeaders(this.upstreamSpan);
  }

  /** The provider's answer began (its status); for a stream, what reads its facts on the way. */
  answered(status: number, streaming: boolean): StreamFacts | undefined {
    this.upstreamSpan?.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    if (status >= 400) this.upstreamSpan?.setAttribute(ATTR_ERROR_TYPE, String(status));
    if (streaming) this.stream = streamFacts(this.surface);
    return this.stream;
  }

  /** A JSON answer, parsed: its id, model, finish reasons and usage. */
  answer(parsed: unknown): void {
    const facts: ResponseFacts = {};
    readAnswer(this.surface, parsed, facts);
    this.span.setAttributes(factAttributes(facts));
  }

  /** The provider call is over: its body read, or the call failed (`error`, a class of failure). */
  upstreamEnded(error?: string): void {
    const span = this.upstreamSpan;
    if (span === undefined) return;
    this.upstreamSpan = undefined;
    if (error !== undefined) {
      span.setAttribute(ATTR_ERROR_TYPE, error);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
    if (this.stream) {
      this.stream.end();
      this.span.setAttributes(factAttributes(this.stream.facts()));
      const first = this.stream.firstChunkAt;
      if (first !== undefined) {
        this.span.setAttribute(GEN_AI.timeToFirstChunk, (first - this.upstreamStartedAt) / 1000);
      }
    }
  }

  /** The enforced response: every tool call with its decision, as events. */
  evidence(evidence: ResponseEvidence | undefined): void {
    if (evidence) addEvidenceEvents(this.span, evidence);
  }

  /** The receipt was spooled (or refused) between `startedAt` and now. */
  receipt(startedAt: number, recorded: boolean): void {
    const span = this.tracer.startSpan(
      'toolgate.receipt',
      { kind: SpanKind.INTERNAL, startTime: startedAt },
      childOf(this.span),
    );
    if (!recorded) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }

  /**
   * How the request ended for the agent, when the proxy knows better than the reply's status
   * (a stream's status is in its last event), and a class of failure if it failed.
   */
  outcome(status: number, failure?: string): void {
    this.status = status;
    if (failure !== undefined) this.failure = failure;
  }

  /** Ends the request's span (and a provider call left open by a failure). */
  end(replyStatus: number): void {
    this.upstreamEnded('aborted');
    const status = this.status ?? replyStatus;
    this.span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    // As for HTTP servers: a 4xx is the agent's error, a 5xx the gateway's or the provider's.
    const failure = this.failure ?? (status >= 500 ? String(status) : undefined);
    if (failure !== undefined) {
      this.span.setAttribute(ATTR_ERROR_TYPE, failure);
      this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.span.end();
  }
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** A stream's failure as `error.type`: the status it ended with says which. */
export function streamFailure(status: number): string {
  return status === 499 ? 'client_disconnected' : status === 504 ? 'timeout' : 'stream_failed';
}

/** An error's class for `error.type`: undici's or the system's code, never its message. */
export function failureClass(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? code : 'upstream_failed';
}
