import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type JSONRPCRequest,
  JSONRPCRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '@toolgate/core';
import { sendJson } from '../proxy/agent-http.ts';
import { plainCallToolRequest } from './call-tool-shape.ts';
import { isRequestEnvelope } from './jsonrpc-shape.ts';
import type { HandlerExtra } from './mcp-session.ts';
import { wireError } from './wire-errors.ts';

/**
 * Passed-through methods the lean path serves. `logging/setLevel` is not one: when the upstream
 * declares logging, the SDK `Server` answers it itself, so it stays on the SDK's path.
 */
const LEAN_PASSED_THROUGH =
  /^(resources\/(list|templates\/list|read|subscribe|unsubscribe)|prompts\/(list|get)|completion\/complete)$/;

/** What the lean path needs of a session: the very handlers its SDK `Server` dispatches to. */
export interface LeanHandlers {
  readonly servesTools: boolean;
  readonly isClosed: boolean;
  readonly sessionId: string | undefined;
  listTools(request: never, extra: HandlerExtra): Promise<unknown>;
  callTool(request: never, extra: HandlerExtra): Promise<unknown>;
  passThrough(request: JSONRPCRequest, extra: HandlerExtra): Promise<unknown>;
}

type Handler = (request: never, extra: HandlerExtra) => Promise<unknown>;

/**
 * The agent's JSON-RPC `POST` on an existing session, served on `node:http` without the SDK
 * transport's Web `Request`/`Response` conversion (about a quarter of the gateway's CPU per call,
 * bench/mcp/README.md). Only plain requests come here: one JSON-RPC request (no batch) of
 * `tools/call`, `tools/list`, `ping` or a passed-through method, valid by the SDK's own schemas,
 * with the headers the SDK transport requires. Anything else (batches, notifications other than
 * the cancellation of a lean request, responses, `initialize`, tasks, bad headers, a closed
 * session, invalid params) is left to the SDK transport, so its answer is exactly the SDK's.
 *
 * The answer is one JSON response, or an SSE stream once the handler sends a notification (its
 * progress): the spec allows either, and the SDK client accepts both.
 */
export class LeanAgentEndpoint {
  /** Lean requests in flight by JSON-RPC id: a `notifications/cancelled` aborts them. */
  private readonly inFlight = new Map<string | number, AbortController>();

  constructor(private readonly session: LeanHandlers) {}

  /** Serves the request, or returns undefined when the SDK transport must. */
  serve(
    request: IncomingMessage,
    reply: ServerResponse,
    body: unknown,
    authInfo: AuthInfo,
  ): Promise<void> | undefined {
    if (this.session.isClosed || !plainHeaders(request)) return undefined;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
    if (!('id' in body)) {
      // A notification: only the cancellation of a lean request is the lean path's.
      const parsed = JSONRPCMessageSchema.safeParse(body);
      if (!parsed.success || !('method' in parsed.data)) return undefined;
      return this.cancel(parsed.data, reply);
    }
    // A response, or anything the SDK's request schema refuses, is the SDK transport's.
    if (!isRequestEnvelope(body)) return undefined;
    const message = body;
    const dispatched = this.dispatch(message);
    if (dispatched === undefined || this.inFlight.has(message.id)) return undefined;
    return this.answer(message, dispatched, reply, authInfo);
  }

  /** The handler and its validated request, or undefined when the SDK must answer. */
  private dispatch(message: JSONRPCRequest): { handler: Handler; request: unknown } | undefined {
    const params = message.params as JsonObject | undefined;
    // Tasks (`params.task`, related-task metadata) are the SDK's.
    if (params?.task !== undefined) return undefined;
    const meta = params?._meta as JsonObject | undefined;
    if (meta !== undefined && 'io.modelcontextprotocol/related-task' in meta) return undefined;
    const s = this.session;
    switch (message.method) {
      case 'tools/call': {
        if (!s.servesTools) return undefined;
        const plain = plainCallToolRequest(message);
        if (plain) return { handler: s.callTool as Handler, request: plain };
        return validated(CallToolRequestSchema, message, s.callTool);
      }
      case 'tools/list':
        return s.servesTools ? validated(ListToolsRequestSchema, message, s.listTools) : undefined;
      case 'ping':
        return validated(PingRequestSchema, message, async () => ({}));
      default:
        if (!LEAN_PASSED_THROUGH.test(message.method)) return undefined;
        // The envelope check left `params._meta` to the method's schema: this one has none.
        return validated(JSONRPCRequestSchema, message, s.passThrough as Handler);
    }
  }

  private async answer(
    message: JSONRPCRequest,
    dispatched: { handler: Handler; request: unknown },
    reply: ServerResponse,
    authInfo: AuthInfo,
  ): Promise<void> {
    const controller = new AbortController();
    const id = message.id;
    this.inFlight.set(id, controller);
    let done = false;
    // The agent hung up: the handler (and its upstream request) stop.
    const onClose = () => {
      if (!done) controller.abort(new Error('the agent closed the connection'));
    };
    reply.once('close', onClose);
    const sessionId = this.session.sessionId;
    const headers: Record<string, string> = sessionId ? { 'mcp-session-id': sessionId } : {};
    let streaming = false;
    const extra: HandlerExtra = {
      authInfo,
      signal: controller.signal,
      sessionId,
      requestId: id,
      sendNotification: async (notification) => {
        if (controller.signal.aborted || reply.destroyed) return;
        if (!streaming) {
          streaming = true;
          reply.writeHead(200, { ...SSE_HEADERS, ...headers });
        }
        reply.write(sseEvent({ jsonrpc: '2.0', ...notification }));
      },
    };
    let response: JsonObject;
    try {
      const result = await dispatched.handler.call(
        this.session,
        dispatched.request as never,
        extra,
      );
      response = { jsonrpc: '2.0', id, result: result as JsonObject };
    } catch (error) {
      response = { jsonrpc: '2.0', id, error: wireError(error) };
    } finally {
      done = true;
      reply.off('close', onClose);
      if (this.inFlight.get(id) === controller) this.inFlight.delete(id);
    }
    if (reply.destroyed) return;
    if (controller.signal.aborted) {
      // Cancelled: no response is sent (as the SDK does); the stream just ends.
      if (!streaming) reply.writeHead(200, { ...SSE_HEADERS, ...headers });
      reply.end();
      return;
    }
    if (streaming) reply.end(sseEvent(response));
    else sendJson(reply, 200, JSON.stringify(response), headers);
  }

  /** A `notifications/cancelled` for a lean request aborts it (202); any other notification is the SDK's. */
  private cancel(message: JSONRPCMessage, reply: ServerResponse): Promise<void> | undefined {
    const cancelled = CancelledNotificationSchema.safeParse(message);
    const requestId = cancelled.success ? cancelled.data.params.requestId : undefined;
    const controller = requestId === undefined ? undefined : this.inFlight.get(requestId);
    if (controller === undefined) return undefined;
    controller.abort(new Error(cancelled.data?.params.reason ?? 'cancelled by the agent'));
    reply.writeHead(202).end();
    return Promise.resolve();
  }
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

function sseEvent(message: JsonObject): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/** The request, parsed by its method's schema (as the SDK's `setRequestHandler` does), or undefined. */
function validated(
  schema: { safeParse: (value: unknown) => { success: boolean; data?: unknown } },
  message: JSONRPCRequest,
  handler: Handler,
): { handler: Handler; request: unknown } | undefined {
  const parsed = schema.safeParse(message);
  return parsed.success ? { handler, request: parsed.data } : undefined;
}

/**
 * The headers the SDK transport insists on, checked the way it does (else it answers 406, 415 or
 * 400, and so it gets the request): `Accept` naming both answer types, a JSON `Content-Type`, and
 * a supported `Mcp-Protocol-Version` when one is sent.
 */
function plainHeaders(request: IncomingMessage): boolean {
  const accept = request.headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return false;
  if (!isJsonContentType(request.headers['content-type'])) return false;
  const version = request.headers['mcp-protocol-version'];
  return version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version as string);
}
