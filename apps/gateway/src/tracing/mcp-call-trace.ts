import {
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from '@opentelemetry/semantic-conventions';
import type { MediationResult, ReceiptIdentity, ToolCallEvidence } from '@toolgate/core';
import { childOf, remoteParent, traceHeaders } from '@toolgate/telemetry';
import { GEN_AI, MCP } from './gen-ai.ts';
import {
  identityAttributes,
  mediationAttributes,
  safeText,
  TOOL_CALL_EVENT,
  toolCallAttributes,
} from './tool-events.ts';

/** An MCP `tools/call` as the trace sees it. */
export interface McpCall {
  server: string;
  /** The tool's name as the agent called it. */
  name: string;
  requestId: string | number;
  sessionId: string | undefined;
  /** The request's `params._meta`: where an MCP client puts its `traceparent`. */
  meta: Readonly<Record<string, unknown>> | undefined;
  /** The `traceparent` of the HTTP request that carried it, when the agent sent one. */
  httpParent: Context | undefined;
  /** performance.now() when the HTTP request arrived. */
  startedAt: number;
  identity: ReceiptIdentity;
  receiptId: string;
}

/** How the call ended: McpSession's outcome names and the JSON-RPC error the agent got. */
export interface McpCallEnd {
  outcome: string;
  evidence: ToolCallEvidence | undefined;
  mcpError?: { code: number } | undefined;
}

/**
 * The spans of one MCP `tools/call` on `/mcp/<server>`, as the MCP semantic conventions name
 * them: the server span `tools/call {tool}` (its parent the agent's context from `params._meta`,
 * else from the HTTP `traceparent`), the mediation (INTERNAL) and the upstream call (CLIENT,
 * whose context goes to the upstream server in `params._meta` and, on the lean path, as the
 * HTTP `traceparent`). The call and its decision are an event of the server span.
 */
export class McpCallTrace {
  private readonly span: Span;
  private upstreamSpan: Span | undefined;

  constructor(
    private readonly tracer: Tracer,
    gateway: string,
    call: McpCall,
  ) {
    // The MCP conventions: the context in `params._meta` first, the transport's otherwise.
    const meta = remoteParent(call.meta);
    const parent = trace.getSpanContext(meta) !== undefined ? meta : (call.httpParent ?? meta);
    const tool = safeText(call.name);
    this.span = tracer.startSpan(
      `tools/call ${tool}`,
      {
        kind: SpanKind.SERVER,
        startTime: call.startedAt,
        attributes: {
          [MCP.method]: 'tools/call',
          [GEN_AI.operation]: 'execute_tool',
          [GEN_AI.toolName]: tool,
          [MCP.requestId]: safeText(String(call.requestId)),
          ...(call.sessionId ? { [MCP.session]: safeText(call.sessionId) } : {}),
          ...identityAttributes(call.identity),
          'toolgate.gateway': gateway,
          'toolgate.surface': 'mcp',
          'toolgate.mcp.server': call.server,
          'toolgate.receipt.id': call.receiptId,
        },
      },
      parent,
    );
  }

  /** The call was judged between `startedAt` and `endedAt` against this tool list's mediation. */
  mediated(startedAt: number, endedAt: number, mediation: MediationResult): void {
    const span = this.tracer.startSpan(
      'toolgate.mediate',
      { kind: SpanKind.INTERNAL, startTime: startedAt, attributes: mediationAttributes(mediation) },
      childOf(this.span),
    );
    span.end(endedAt);
  }

  /** The call goes upstream as `tool`: its span, and the trace context to send along. */
  upstream(url: URL, tool: string): Record<string, string> {
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    this.upstreamSpan = this.tracer.startSpan(
      `tools/call ${safeText(tool)}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [MCP.method]: 'tools/call',
          [GEN_AI.operation]: 'execute_tool',
          [GEN_AI.toolName]: safeText(tool),
          [ATTR_SERVER_ADDRESS]: url.hostname,
          [ATTR_SERVER_PORT]: port,
        },
      },
      childOf(this.span),
    );
    return traceHeaders(this.upstreamSpan);
  }

  /** The upstream answered (`isError`: a tool error) or failed with a JSON-RPC error `code`. */
  upstreamEnded(result: { isError: boolean } | { code: number }): void {
    const span = this.upstreamSpan;
    if (span === undefined) return;
    this.upstreamSpan = undefined;
    if ('code' in result) {
      span.setAttributes({
        [ATTR_ERROR_TYPE]: String(result.code),
        [MCP.statusCode]: String(result.code),
      });
      span.setStatus({ code: SpanStatusCode.ERROR });
    } else if (result.isError) span.setAttribute(ATTR_ERROR_TYPE, 'tool_error');
    span.end();
  }

  /** Ends the server span with the call's outcome and decision. */
  end(end: McpCallEnd): void {
    if (end.evidence) this.span.addEvent(TOOL_CALL_EVENT, toolCallAttributes(end.evidence));
    this.span.setAttribute('toolgate.outcome', end.outcome);
    const errorType =
      end.mcpError !== undefined
        ? String(end.mcpError.code)
        : end.outcome === 'tool_error' || end.outcome === 'withheld'
          ? 'tool_error'
          : undefined;
    if (errorType !== undefined) {
      this.span.setAttribute(ATTR_ERROR_TYPE, errorType);
      if (end.mcpError !== undefined) this.span.setAttribute(MCP.statusCode, errorType);
      this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    if (this.upstreamSpan) this.upstreamEnded({ code: -32603 });
    this.span.end();
  }
}
