import type { IncomingMessage } from 'node:http';
import type { Tracer } from '@opentelemetry/api';
import type { ProviderSurface } from '@toolgate/core';
import { type McpCall, McpCallTrace } from './mcp-call-trace.ts';
import { RequestTrace } from './request-trace.ts';

/**
 * The gateway's tracing when it is on (docs/observability.md): hands out the spans of each
 * request. The proxy and the MCP routes hold an optional one; absent, they create no span, no
 * context, no header: tracing off costs a property check per request.
 */
export class GatewayTracing {
  constructor(
    readonly tracer: Tracer,
    readonly gateway: string,
  ) {}

  /** The spans of one agent request on a provider surface, its request span started now. */
  request(surface: ProviderSurface, request: IncomingMessage): RequestTrace {
    return new RequestTrace(this.tracer, surface, request, this.gateway);
  }

  /** The spans of one MCP `tools/call`, its server span started when its HTTP request came. */
  mcpCall(call: McpCall): McpCallTrace {
    return new McpCallTrace(this.tracer, this.gateway, call);
  }
}
