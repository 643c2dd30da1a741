import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isJsonContentType, mediaTypeEssence } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  CallToolResultSchema,
  ErrorCode,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '@toolgate/core';
import { type Dispatcher, Pool } from 'undici';
import { isResultFor } from './jsonrpc-shape.ts';
import { SseParser } from './sse-parser.ts';
import {
  ResponseTooLargeError,
  type UpstreamCallOptions,
  UpstreamFailure,
  type UpstreamToolCaller,
} from './upstream-client.ts';

/**
 * Keep-alive connection pools to upstream MCP servers, one per origin, shared by every session
 * of the gateway (the SDK client's `fetch` has undici's global pool, but also its `Request`,
 * `Response` and web streams per request, which the lean client does without).
 */
export class UpstreamPools {
  private readonly pools = new Map<string, Pool>();

  get(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (pool === undefined) {
      // Timeouts are the caller's (reset by progress), not the pool's.
      pool = new Pool(origin, {
        connections: 256,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.destroy().catch(() => {})));
  }
}

export interface LeanUpstreamOptions {
  server: string;
  url: URL;
  pool: Dispatcher;
  /** The bundle's headers (secrets resolved) as the SDK client sends them. */
  headers: Record<string, string>;
  /** The upstream session the SDK client initialized, and the protocol version it negotiated. */
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  /** Most bytes of one answer (a JSON body or one POST's SSE stream). */
  maxResponseBytes: number;
  /** Messages on the answer other than ours and our progress: the SDK client handles them. */
  onOtherMessage: (message: JSONRPCMessage) => void;
  /** The request was given up (timeout, abort): tell the upstream, as the SDK client does. */
  onGivenUp: (requestId: string, reason: string) => void;
}

/**
 * JSON-RPC over Streamable HTTP to the upstream session the SDK client opened: one `POST` per
 * request on a keep-alive undici pool, the answer read as JSON or as an SSE stream parsed as it
 * comes (progress forwarded at once, the stream left at the response with the request's id).
 * Bounded like the SDK path (`maxResponseBytes` per answer, the timeout reset by progress) and
 * failing with the errors `upstreamFailure` maps the same way: the upstream's JSON-RPC errors as
 * `McpError`s, HTTP failures as `StreamableHTTPError`s.
 */
export class LeanUpstream implements UpstreamToolCaller {
  private next = 0;
  private readonly path: string;
  private readonly headers: Record<string, string>;

  constructor(private readonly options: LeanUpstreamOptions) {
    this.path = `${options.url.pathname}${options.url.search}`;
    this.headers = {
      ...options.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(options.sessionId ? { 'mcp-session-id': options.sessionId } : {}),
      ...(options.protocolVersion ? { 'mcp-protocol-version': options.protocolVersion } : {}),
    };
  }

  async callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    options: UpstreamCallOptions,
  ): Promise<JsonObject> {
    const result = await this.request('tools/call', params, options);
    const parsed = CallToolResultSchema.safeParse(result);
    if (!parsed.success) {
      throw new UpstreamFailure(
        `MCP server ${this.options.server} answered an invalid tool result`,
      );
    }
    return parsed.data as JsonObject;
  }

  /** One request; resolves with its result, or throws. */
  async request(
    method: string,
    params: Record<string, unknown>,
    options: UpstreamCallOptions,
  ): Promise<unknown> {
    // Strings never collide with the SDK client's numeric ids on the same upstream session.
    const id = `toolgate-${++this.next}`;
    const { onprogress } = options;
    const sent: Record<string, unknown> = onprogress
      ? { ...params, _meta: { ...(params._meta as JsonObject | undefined), progressToken: id } }
      : params;
    const controller = new AbortController();
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, options.timeoutMs);
    };
    const follow = () => controller.abort(options.signal.reason);
    if (options.signal.aborted) follow();
    else options.signal.addEventListener('abort', follow, { once: true });
    arm();
    try {
      const answer = await this.options.pool.request({
        path: this.path,
        method: 'POST',
        headers: this.headers,
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params: sent }),
        signal: controller.signal,
      });
      const response = await this.read(answer, id, (progress) => {
        arm();
        onprogress?.(progress);
      });
      if ('error' in response) {
        const error = response.error as { code: number; message: string; data?: unknown };
        throw new McpError(error.code, error.message, error.data);
      }
      return response.result;
    } catch (error) {
      if (controller.signal.aborted) {
        this.options.onGivenUp(id, timedOut ? 'timed out' : 'cancelled');
        if (timedOut) throw new McpError(ErrorCode.RequestTimeout, 'Request timed out');
      }
      throw error;
    } finally {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', follow);
    }
  }

  /** The response to `id` from the answer, handing on progress and every other message. */
  private async read(
    answer: Dispatcher.ResponseData,
    id: string,
    progress: (params: JsonObject) => void,
  ): Promise<JsonObject> {
    const { body } = answer;
    const limit = this.options.maxResponseBytes;
    if (answer.statusCode < 200 || answer.statusCode >= 300) {
      // The body is the upstream's, never the agent's business: read (bounded) and dropped.
      await body.dump({ limit: 64 * 1024 }).catch(() => {});
      throw new StreamableHTTPError(answer.statusCode, 'Error POSTing to endpoint');
    }
    const type = mediaTypeEssence(header(answer.headers['content-type']));
    const sse = type === 'text/event-stream';
    if (!sse && !isJsonContentType(type ?? null)) {
      await body.dump({ limit: 64 * 1024 }).catch(() => {});
      // The type is the upstream's to choose, so it is not repeated to the agent.
      throw new UpstreamFailure(
        `MCP server ${this.options.server} failed (an answer neither JSON nor an event stream)`,
      );
    }
    const decoder = new TextDecoder();
    const parser = new SseParser();
    const chunks: Buffer[] = [];
    let seen = 0;
    return new Promise<JsonObject>((resolve, reject) => {
      let settled = false;
      const settle = (error: unknown, response?: JsonObject) => {
        if (settled) return;
        settled = true;
        if (response === undefined) {
          body.destroy();
          reject(error);
          return;
        }
        resolve(response);
        // The rest (the stream's end) is read off so the connection is reused, but not for long.
        const linger = setTimeout(() => body.destroy(), LINGER_MS);
        linger.unref();
        body.once('close', () => clearTimeout(linger));
      };
      const take = (message: JSONRPCMessage) => {
        if (settled) return;
        if ('id' in message && message.id === id && !('method' in message)) {
          settle(undefined, message as JsonObject);
        } else if (
          'method' in message &&
          message.method === 'notifications/progress' &&
          message.params?.progressToken === id
        ) {
          const { progressToken: _token, ...rest } = message.params;
          progress(rest as JsonObject);
        } else this.options.onOtherMessage(message);
      };
      body.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > limit)
          return settled ? body.destroy() : settle(new ResponseTooLargeError(limit));
        if (settled) return;
        try {
          if (!sse) chunks.push(chunk);
          else {
            for (const event of parser.push(decoder.decode(chunk, { stream: true }))) {
              if (event.event === 'message') take(parseMessage(JSON.parse(event.data), id));
            }
          }
        } catch (error) {
          settle(error);
        }
      });
      body.on('end', () => {
        if (settled) return;
        try {
          if (!sse) {
            const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
            for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
              take(parseMessage(item, id));
            }
          }
          settle(new McpError(ErrorCode.ConnectionClosed, 'the answer ended without a response'));
        } catch (error) {
          settle(error);
        }
      });
      body.on('error', (error) => settle(error));
    });
  }
}

/** How long the end of an answer is waited for after its response, before the connection is dropped. */
const LINGER_MS = 1000;

/**
 * A message of the answer: the response to our request checked by its envelope alone (its result
 * is `CallToolResultSchema`'s to validate), anything else by the SDK's message schema.
 */
function parseMessage(value: unknown, id: string): JSONRPCMessage {
  if (isResultFor(value, id)) return value as JSONRPCMessage;
  return JSONRPCMessageSchema.parse(value);
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The upstream session the SDK client's transport holds: its id and negotiated version. */
export function upstreamSessionOf(transport: unknown): {
  sessionId: string | undefined;
  protocolVersion: string | undefined;
} {
  const t = transport as { sessionId?: string; protocolVersion?: string } | undefined;
  return { sessionId: t?.sessionId, protocolVersion: t?.protocolVersion };
}
