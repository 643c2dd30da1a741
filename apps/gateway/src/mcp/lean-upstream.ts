import type { TextDecoder as NodeTextDecoder } from 'node:util';
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
import { plainCallToolResult } from './call-tool-shape.ts';
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
    params: { name: string; arguments?: Record<string, unknown>; _meta?: JsonObject },
    options: UpstreamCallOptions,
  ): Promise<JsonObject> {
    const result = await this.request('tools/call', params, options);
    const plain = plainCallToolResult(result);
    if (plain) return plain;
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
    // No AbortController of its own: the timer and the caller's signal give the answer up
    // directly (one signal per call, the caller's; bench/mcp/README.md).
    let givenUp = false;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    let answer: AnswerReader | undefined;
    const giveUp = (reason: unknown) => {
      givenUp = true;
      answer?.abort(reason);
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        giveUp(new Error('timed out'));
      }, options.timeoutMs);
    };
    const follow = () => giveUp(options.signal.reason);
    try {
      const response = await new Promise<JsonObject>((resolve, reject) => {
        answer = new AnswerReader(
          this.options,
          id,
          (progress) => {
            arm();
            onprogress?.(progress);
          },
          resolve,
          reject,
        );
        if (options.signal.aborted) {
          // Given up before it left: nothing is sent.
          follow();
          return;
        }
        options.signal.addEventListener('abort', follow, { once: true });
        arm();
        this.options.pool.dispatch(
          {
            path: this.path,
            method: 'POST',
            headers: options.headers ? { ...this.headers, ...options.headers } : this.headers,
            body: JSON.stringify({ jsonrpc: '2.0', id, method, params: sent }),
          },
          answer,
        );
      });
      if ('error' in response) {
        const error = response.error as { code: number; message: string; data?: unknown };
        throw new McpError(error.code, error.message, error.data);
      }
      return response.result;
    } catch (error) {
      if (givenUp) {
        this.options.onGivenUp(id, timedOut ? 'timed out' : 'cancelled');
        if (timedOut) throw new McpError(ErrorCode.RequestTimeout, 'Request timed out');
      }
      throw error;
    } finally {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', follow);
    }
  }
}

/** Bytes of a refused answer (HTTP error, unknown type) read off to keep the connection, at most. */
const DISCARD_BYTES = 64 * 1024;

/**
 * The answer to one POST, as undici hands it over (its legacy handler callbacks, which take the
 * raw header list as it came): JSON read whole, SSE parsed as it comes; settled at the response
 * to `id`, the rest read off (briefly) so the connection is reused. Bounded like before:
 * `maxResponseBytes` per answer, a refused answer's body read off up to 64 KiB.
 */
class AnswerReader implements Dispatcher.DispatchHandler {
  private settled = false;
  private abortConnection: ((error?: Error) => void) | undefined;
  private abortedWith: Error | undefined;
  private mode: 'json' | 'sse' | 'discard' = 'discard';
  private readonly chunks: Buffer[] = [];
  private seen = 0;
  private parser: SseParser | undefined;
  private decoder: NodeTextDecoder | undefined;
  private linger: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: LeanUpstreamOptions,
    private readonly id: string,
    private readonly progress: (params: JsonObject) => void,
    private readonly resolve: (response: JsonObject) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  /** Gives up: the request is cut wherever it is, and fails with `reason`. */
  abort(reason: unknown): void {
    const error = reason instanceof Error ? reason : new Error('aborted');
    this.abortedWith ??= error;
    this.settle(error);
    this.abortConnection?.(error);
  }

  onConnect(abort: (error?: Error) => void): void {
    this.abortConnection = abort;
    if (this.abortedWith) abort(this.abortedWith);
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    if (statusCode < 200 || statusCode >= 300) {
      // The body is the upstream's, never the agent's business: read (bounded) and dropped.
      this.settle(new StreamableHTTPError(statusCode, 'Error POSTing to endpoint'));
      return true;
    }
    const type = mediaTypeEssence(contentType(rawHeaders));
    if (type === 'text/event-stream') {
      this.mode = 'sse';
      this.parser = new SseParser();
      this.decoder = new TextDecoder();
    } else if (isJsonContentType(type ?? null)) this.mode = 'json';
    else {
      // The type is the upstream's to choose, so it is not repeated to the agent.
      this.settle(
        new UpstreamFailure(
          `MCP server ${this.options.server} failed (an answer neither JSON nor an event stream)`,
        ),
      );
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.seen += chunk.length;
    if (this.mode === 'discard') {
      if (this.seen > DISCARD_BYTES) this.abortConnection?.(new Error('discarded'));
      return true;
    }
    if (this.seen > this.options.maxResponseBytes) {
      const error = new ResponseTooLargeError(this.options.maxResponseBytes);
      this.settle(error);
      this.abortConnection?.(error);
      return true;
    }
    if (this.settled) return true;
    try {
      if (this.mode === 'json') this.chunks.push(chunk);
      else {
        const text = (this.decoder as NodeTextDecoder).decode(chunk, { stream: true });
        for (const event of (this.parser as SseParser).push(text)) {
          if (event.event === 'message') this.take(parseMessage(JSON.parse(event.data), this.id));
          if (this.settled) break;
        }
      }
    } catch (error) {
      // An answer that cannot be read is cut: nothing after it could be trusted either.
      this.settle(error);
      this.abortConnection?.(error as Error);
    }
    return true;
  }

  onComplete(): void {
    this.finish();
    if (this.settled) return;
    try {
      if (this.mode === 'json') {
        const parsed = JSON.parse(Buffer.concat(this.chunks).toString('utf8')) as unknown;
        for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
          this.take(parseMessage(item, this.id));
        }
      }
      this.settle(new McpError(ErrorCode.ConnectionClosed, 'the answer ended without a response'));
    } catch (error) {
      this.settle(error);
    }
  }

  onError(error: Error): void {
    this.finish();
    this.settle(this.abortedWith ?? error);
  }

  private finish(): void {
    clearTimeout(this.linger);
  }

  private take(message: JSONRPCMessage): void {
    if (this.settled) return;
    if ('id' in message && message.id === this.id && !('method' in message)) {
      this.settle(undefined, message as JsonObject);
    } else if (
      'method' in message &&
      message.method === 'notifications/progress' &&
      message.params?.progressToken === this.id
    ) {
      const { progressToken: _token, ...rest } = message.params;
      this.progress(rest as JsonObject);
    } else this.options.onOtherMessage(message);
  }

  private settle(error: unknown, response?: JsonObject): void {
    if (this.settled) return;
    this.settled = true;
    if (response === undefined) {
      this.reject(error);
      return;
    }
    this.resolve(response);
    // The rest (the stream's end) is read off so the connection is reused, but not for long.
    this.linger = setTimeout(() => this.abortConnection?.(new Error('lingered')), LINGER_MS);
    this.linger.unref();
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

/** The `Content-Type` of a raw header list (`[name, value, …]`), as undici hands it over. */
function contentType(raw: Buffer[]): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as Buffer;
    if (name.length === 12 && name.toString('latin1').toLowerCase() === 'content-type') {
      return (raw[i + 1] as Buffer).toString('latin1');
    }
  }
  return undefined;
}

/** The upstream session the SDK client's transport holds: its id and negotiated version. */
export function upstreamSessionOf(transport: unknown): {
  sessionId: string | undefined;
  protocolVersion: string | undefined;
} {
  const t = transport as { sessionId?: string; protocolVersion?: string } | undefined;
  return { sessionId: t?.sessionId, protocolVersion: t?.protocolVersion };
}
