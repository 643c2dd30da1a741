import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  type ClientCapabilities,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { type BundleMcpServer, boundedText, type JsonObject, scrubSecrets } from '@toolgate/core';

/** Where `secretRef.env` headers are read from: the gateway's environment, at connect time. */
export type SecretSource = Readonly<Record<string, string | undefined>>;

/** A header's secret is not in this gateway's environment: the session cannot start. */
export class MissingSecretError extends Error {
  constructor(server: string, header: string, env: string) {
    super(
      `McpServer ${server}: header ${header} is read from environment variable ${env}, which is not set on this gateway`,
    );
  }
}

/** The upstream could not be reached or failed: what the agent and the receipt are told. */
export class UpstreamFailure extends Error {
  constructor(
    message: string,
    /** The JSON-RPC code the agent gets: the upstream's own for its errors, else internal. */
    readonly code: number = ErrorCode.InternalError,
  ) {
    super(message);
  }
}

/** The headers the gateway sends upstream: the bundle's values, and secrets from the environment. */
export function upstreamHeaders(server: BundleMcpServer, secrets: SecretSource): Headers {
  const headers = new Headers();
  for (const header of server.headers) {
    if (header.value !== undefined) headers.set(header.name, header.value);
    else if (header.secretRef) {
      const value = secrets[header.secretRef.env];
      if (value === undefined || value === '') {
        throw new MissingSecretError(server.name, header.name, header.secretRef.env);
      }
      headers.set(header.name, value);
    }
  }
  return headers;
}

/** One upstream `tools/call`, as `mediateCall` makes it. */
export interface UpstreamCallOptions {
  timeoutMs: number;
  signal: AbortSignal;
  /** Upstream progress (the notification's params less its token); resets the timeout. */
  onprogress?: (progress: JsonObject) => void;
  /** Headers for this request alone (its `traceparent`), where the transport lets them be set. */
  headers?: Record<string, string>;
}

/** How the gateway calls an upstream tool: the result (validated), or it throws. */
export interface UpstreamToolCaller {
  callTool(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: JsonObject },
    options: UpstreamCallOptions,
  ): Promise<JsonObject>;
}

/** `tools/call` through the SDK client (its Streamable HTTP transport). */
export function sdkToolCaller(client: Client): UpstreamToolCaller {
  return {
    async callTool(params, options) {
      return (await client.request({ method: 'tools/call', params }, CallToolResultSchema, {
        timeout: options.timeoutMs,
        signal: options.signal,
        resetTimeoutOnProgress: true,
        ...(options.onprogress
          ? { onprogress: options.onprogress as (progress: unknown) => void }
          : {}),
      })) as JsonObject;
    },
  };
}

export interface UpstreamOptions {
  secrets: SecretSource;
  /** Most bytes of one upstream answer (a JSON body or one POST's SSE stream). */
  maxResponseBytes: number;
  /** Connecting (the upstream's `initialize`) gives up after this long. */
  timeoutMs: number;
  /** The client features the agent declared, declared upstream in turn (agent-requests.ts). */
  clientCapabilities?: ClientCapabilities;
}

/**
 * Opens an SDK `Client` on the upstream server with its Streamable HTTP transport: one per agent
 * session. The agent's own headers (its Toolgate token above all) never reach the upstream; only
 * the bundle's headers do.
 */
export async function connectUpstream(
  server: BundleMcpServer,
  options: UpstreamOptions,
): Promise<Client> {
  const headers = upstreamHeaders(server, options.secrets);
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers },
    fetch: boundedFetch(options.maxResponseBytes),
    // A cut standalone stream is reopened a few times, not forever.
    reconnectionOptions: {
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 30_000,
      reconnectionDelayGrowFactor: 2,
      maxRetries: 5,
    },
  });
  const client = new Client(
    { name: 'toolgate-gateway', version: '0.1.0' },
    // The gateway passes results through: it does not validate them against the tools' output
    // schemas (the agent's client does, against the definitions it was served). It declares the
    // client features the agent declared, and relays them (agent-requests.ts).
    { capabilities: options.clientCapabilities ?? {} },
  );
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
  } catch (error) {
    await client.close().catch(() => {});
    throw upstreamFailure(error, server.name);
  }
  return client;
}

/**
 * An error of the upstream call as the agent may see it: the upstream's own JSON-RPC errors with
 * their code (message scrubbed and bounded), transport failures as an internal error saying what
 * failed and nothing more (no upstream body, no header, no URL credentials: there are none).
 */
export function upstreamFailure(error: unknown, server: string): UpstreamFailure {
  if (error instanceof UpstreamFailure) return error;
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) {
      return new UpstreamFailure(`MCP server ${server} did not answer in time`);
    }
    if (error.code === ErrorCode.ConnectionClosed) {
      return new UpstreamFailure(`MCP server ${server} closed the connection`);
    }
    const message = scrubSecrets(boundedText(error.message.replace(/^MCP error -?\d+: /, ''), 512));
    return new UpstreamFailure(`MCP server ${server}: ${message}`, error.code);
  }
  if (error instanceof StreamableHTTPError) {
    const status = error.code === undefined ? '' : ` (HTTP ${error.code})`;
    return new UpstreamFailure(`MCP server ${server} failed${status}`);
  }
  if (error instanceof ResponseTooLargeError) {
    return new UpstreamFailure(`MCP server ${server} answered with more than ${error.limit} bytes`);
  }
  return new UpstreamFailure(`MCP server ${server} is unreachable`);
}

export class ResponseTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`upstream answer exceeds ${limit} bytes`);
  }
}

/**
 * `fetch` whose POST answers are cut off (the stream errors) past `limit` bytes: a hostile or
 * broken upstream cannot make the gateway buffer without bound. The standalone GET stream is
 * long-lived by design and carries only notifications; it is not bounded in total.
 *
 * Each request also gets its own abort signal, following the transport's: the SDK passes its
 * session's one signal to every fetch, and undici keeps a listener on it per request until the
 * request object is garbage-collected, so a busy session's signal grew thousands of listeners
 * (undici counts them on every fetch; Node warned on every call past 1500). Ours is removed as
 * soon as the answer is read.
 */
export function boundedFetch(limit: number): typeof fetch {
  return async (input, init) => {
    const shared = init?.signal ?? undefined;
    let release = () => {};
    let own: RequestInit | undefined = init;
    if (shared) {
      const controller = new AbortController();
      const follow = () => controller.abort(shared.reason);
      if (shared.aborted) follow();
      else shared.addEventListener('abort', follow, { once: true });
      release = () => shared.removeEventListener('abort', follow);
      own = { ...init, signal: controller.signal };
    }
    let response: Response;
    try {
      response = await fetch(input, own);
    } catch (error) {
      release();
      throw error;
    }
    if (init?.method !== 'POST' || response.body === null) {
      // A GET's stream lives as long as the session; anything else has no body left to read.
      if (init?.method !== 'GET' || response.body === null) release();
      return response;
    }
    let seen = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > limit) {
            release();
            controller.error(new ResponseTooLargeError(limit));
          } else controller.enqueue(chunk);
        },
        flush: release,
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
