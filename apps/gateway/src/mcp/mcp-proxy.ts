import { hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import {
  type BindableIdentity,
  type BundleMcpServer,
  bindIdentity,
  boundedText,
  illFormedPathInJson,
  scrubSecrets,
} from '@toolgate/core';
import { remoteParent } from '@toolgate/telemetry';
import type { Logger } from 'pino';
import type { ActiveBundle, BundleStore } from '../bundle/bundle-store.ts';
import type { CallGates } from '../calls/call-gates.ts';
import type { GatewayMetrics } from '../metrics.ts';
import { readBody, sendJson, UnreadableBodyError } from '../proxy/agent-http.ts';
import { readAgentIdentity, UnreadableIdentityError } from '../proxy/agent-identity.ts';
import type { GatewayTracing } from '../tracing/gateway-tracing.ts';
import { relayedCapabilities } from './agent-requests.ts';
import { LeanUpstream, UpstreamPools, upstreamSessionOf } from './lean-upstream.ts';
import type { McpReceipts } from './mcp-receipts.ts';
import { requestContext } from './mcp-request.ts';
import { McpSession } from './mcp-session.ts';
import type { ObservationReporter } from './observation-reporter.ts';
import { type AgentRequestFacts, authInfoFor, factsOf } from './request-context.ts';
import { SessionRegistry } from './session-registry.ts';
import {
  connectUpstream,
  MissingSecretError,
  type SecretSource,
  upstreamHeaders,
} from './upstream-client.ts';

export interface McpProxyOptions {
  /** Idle MCP sessions are closed after this long (MCP_SESSION_IDLE_MS). */
  idleMs: number;
  maxSessions: number;
  /** Each upstream request (connect, list, call) gives up after this long. */
  upstreamTimeoutMs: number;
  /** Largest agent request body, in bytes. */
  bodyLimit: number;
  /** Largest upstream answer to one request, in bytes. */
  maxResponseBytes: number;
}

export interface McpProxyDependencies {
  bundles: BundleStore;
  receipts: McpReceipts;
  metrics: GatewayMetrics;
  log: Logger;
  /** Approvals and rate-limit buckets, shared with the LLM surfaces. */
  calls?: CallGates;
  /** Reports tool lists to the API (absent in tests without one). */
  reporter?: ObservationReporter;
  /** Where `secretRef.env` header values come from: the gateway's environment. */
  secrets: SecretSource;
  options: McpProxyOptions;
  now?: () => number;
  /** Spans of each tools/call (docs/observability.md); absent (tracing off): none. */
  tracing?: GatewayTracing;
}

const SESSION_HEADER = 'mcp-session-id';
const ROUTE = /^\/mcp\/([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/?$/;

/** The McpServer a request is for (`/mcp/<server>`), or undefined when it is not an MCP route. */
export function mcpServerOfPath(url: string | undefined): string | undefined {
  if (url === undefined || !url.startsWith('/mcp/')) return undefined;
  const query = url.indexOf('?');
  return ROUTE.exec(query === -1 ? url : url.slice(0, query))?.[1];
}

/**
 * The gateway's `/mcp/<server>` routes: MCP Streamable HTTP (the SDK's server transport, one per
 * agent session, each with its own SDK client session upstream). This layer does what must
 * happen before any JSON-RPC is read: the server is one the bundle names, the body is bounded
 * and valid, the identity is bound exactly as on the LLM surfaces, and the session exists, has
 * not expired and belongs to whoever presents it.
 */
export class McpProxy {
  private readonly sessions: SessionRegistry;
  private readonly pools = new UpstreamPools();
  private readonly now: () => number;

  constructor(private readonly deps: McpProxyDependencies) {
    this.now = deps.now ?? Date.now;
    this.sessions = new SessionRegistry({
      idleMs: deps.options.idleMs,
      maxSessions: deps.options.maxSessions,
      onCount: (open) => deps.metrics.mcpSessions.set(open),
    });
    deps.bundles.onApplied((active) => void this.tellListChanges(active));
  }

  /**
   * Each open session compares its tool list under the new bundle with what it was served, one
   * session per turn of the event loop (a thousand sessions must not stall requests), until a
   * newer bundle takes over (its own pass compares them again).
   */
  private async tellListChanges(active: ActiveBundle): Promise<void> {
    for (const session of [...this.sessions.open()]) {
      if (this.deps.bundles.current() !== active) return;
      session.bundleChanged(active);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Serves one HTTP request to the end. Never rejects. */
  async handle(name: string, request: IncomingMessage, reply: ServerResponse): Promise<void> {
    try {
      await this.serve(name, request, reply);
    } catch (error) {
      this.deps.log.error({ err: error, server: name }, 'MCP request failed');
      if (reply.headersSent) reply.destroy();
      else answerError(reply, 500, -32603, 'gateway error');
    }
  }

  async close(): Promise<void> {
    await this.sessions.closeAll();
    await this.pools.close();
  }

  private async serve(name: string, request: IncomingMessage, reply: ServerResponse) {
    const receivedAt = this.now();
    const started = performance.now();
    const method = request.method ?? '';
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      return answerError(reply, 405, -32000, 'Method not allowed', { allow: 'GET, POST, DELETE' });
    }
    const active = this.deps.bundles.current();
    if (!active) {
      return answerError(reply, 503, -32603, 'gateway not ready: no valid policy bundle yet');
    }
    const server = active.bundle.mcpServers.find((s) => s.name === name);
    if (server === undefined) {
      return answerError(reply, 404, -32000, `no MCP server "${name}" on this gateway`);
    }
    let facts: AgentRequestFacts;
    let owner: string;
    try {
      const agent = readAgentIdentity(request);
      // Hashed once: the binding looks the token up by this hash, the session is owned by it.
      const tokenHash = agent.token === undefined ? undefined : sha256(agent.token);
      const bound = bindIdentity(
        agent.claims,
        active.bundle.identities as ReadonlyArray<BindableIdentity>,
        active.compiled,
        agent.token === undefined
          ? undefined
          : { secret: agent.token, now: receivedAt, sha256: tokenHash as string },
      );
      if (bound.receipt.binding === 'rejected') {
        return answerError(
          reply,
          403,
          -32000,
          "identity not proven: request refused by policy (send the agent's Toolgate token)",
        );
      }
      facts = { identity: bound.receipt, rules: bound.rules, receivedAt, started };
      if (this.deps.tracing) facts.traceParent = remoteParent(request.headers);
      owner = tokenHash ?? 'anonymous';
    } catch (error) {
      if (error instanceof UnreadableIdentityError) {
        return answerError(reply, 400, -32600, error.message);
      }
      throw error;
    }
    let body: unknown;
    if (method === 'POST') {
      try {
        const received = await readBody(request, this.deps.options.bodyLimit);
        body = JSON.parse(received.text);
        const illFormed = illFormedPathInJson(received.text, body);
        if (illFormed !== undefined) {
          return answerError(reply, 400, -32600, `${illFormed}: holds a lone UTF-16 surrogate`);
        }
      } catch (error) {
        if (error instanceof UnreadableBodyError) {
          return answerError(reply, error.status, -32600, error.message);
        }
        if (error instanceof SyntaxError) {
          return answerError(reply, 400, -32700, `Parse error: ${error.message}`);
        }
        throw error;
      }
    }
    const authInfo = authInfoFor(facts);
    (request as IncomingMessage & { auth?: unknown }).auth = authInfo;
    const sessionIds = request.headersDistinct[SESSION_HEADER];
    if (sessionIds !== undefined && sessionIds.length > 1) {
      return answerError(reply, 400, -32000, `${SESSION_HEADER}: must be sent once`);
    }
    const sessionId = sessionIds?.[0];
    if (sessionId === undefined) {
      if (method === 'POST' && isInitializeRequest(body)) {
        return this.open(server, owner, authInfo, request, reply, body);
      }
      return answerError(reply, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    const session = this.sessions.use(sessionId);
    // Unknown, expired, another server's or another agent's: all "not found" (404), so the client
    // starts a new session and nobody learns whether the id exists.
    if (session === undefined || session.server.name !== name || session.owner !== owner) {
      return answerError(reply, 404, -32001, 'Session not found');
    }
    if (method === 'POST') {
      const lean = session.lean.serve(request, reply, body, authInfo);
      if (lean !== undefined) return lean;
    }
    await session.transport.handleRequest(request, reply, body);
  }

  private async open(
    server: BundleMcpServer,
    owner: string,
    authInfo: ReturnType<typeof authInfoFor>,
    request: IncomingMessage,
    reply: ServerResponse,
    body: unknown,
  ): Promise<void> {
    if (this.deps.receipts.full()) {
      this.deps.metrics.spoolRejected.inc();
      return answerError(reply, 503, -32603, 'gateway receipt spool is full; retry later');
    }
    if (!this.sessions.reserve()) {
      return answerError(reply, 503, -32603, 'gateway holds too many MCP sessions; retry later');
    }
    let session: McpSession | undefined;
    try {
      // The client features the agent declares are declared upstream, and relayed.
      const declared = relayedCapabilities(body);
      const connect = () =>
        connectUpstream(server, {
          secrets: this.deps.secrets,
          maxResponseBytes: this.deps.options.maxResponseBytes,
          timeoutMs: this.deps.options.upstreamTimeoutMs,
          clientCapabilities: declared,
        });
      let client: Client;
      try {
        client = await connect();
      } catch (error) {
        if (error instanceof MissingSecretError) {
          // The message names the variable, never a value (there is none).
          this.deps.log.error({ server: server.name }, error.message);
          return answerError(reply, 502, -32603, error.message);
        }
        const message = (error as Error).message;
        this.deps.log.warn({ server: server.name, reason: message }, 'MCP upstream connect failed');
        return answerError(reply, 502, -32603, message);
      }
      const opened = new McpSession(
        server,
        owner,
        client,
        this.deps,
        (name, authInfo) => this.context(name, server, authInfo),
        (s, id) => this.sessions.add(id, s),
        (id) => void this.sessions.close(id),
        {
          callerFor: (c) => this.leanUpstream(server, c),
          reconnect: connect,
          relay: { declared, authInfo },
        },
      );
      session = opened;
      await opened.connect();
      await opened.transport.handleRequest(request, reply, body);
    } finally {
      this.sessions.release();
      // An initialize the SDK refused (bad params) leaves no session: nothing stays open upstream.
      if (session !== undefined && session.transport.sessionId === undefined) await session.close();
    }
  }

  /** tools/call's client on the upstream session the SDK client opened (docs/mcp.md). */
  private leanUpstream(server: BundleMcpServer, client: Client): LeanUpstream {
    const url = new URL(server.url);
    return new LeanUpstream({
      server: server.name,
      url,
      pool: this.pools.get(url.origin),
      headers: Object.fromEntries(upstreamHeaders(server, this.deps.secrets)),
      ...upstreamSessionOf(client.transport),
      maxResponseBytes: this.deps.options.maxResponseBytes,
      // Notifications and requests of the upstream on a call's stream: the SDK client's, as before.
      onOtherMessage: (message) => client.transport?.onmessage?.(message),
      onGivenUp: (requestId, reason) =>
        void client
          .notification({ method: 'notifications/cancelled', params: { requestId, reason } })
          .catch(() => {}),
    });
  }

  /** A handler's view of its request: the bundle in force now, the server as it now says. */
  private context(name: string, opened: BundleMcpServer, authInfo: unknown) {
    const active = this.deps.bundles.current();
    if (active === undefined) throw new Error('no bundle');
    const server = active.bundle.mcpServers.find((s) => s.name === name) ?? opened;
    return requestContext(
      active,
      server,
      factsOf(authInfo as never),
      this.deps.calls,
      this.deps.options.upstreamTimeoutMs,
    );
  }
}

/** One-shot `crypto.hash` (Node ≥ 20.12): no Hash object per request, as in core's sha256. */
function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}

/** A JSON-RPC error answer of the gateway's own (no request id: it was not read, or not valid). */
function answerError(
  reply: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const safe = scrubSecrets(boundedText(message, 1024));
  const payload = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message: safe } });
  sendJson(reply, status, payload, headers);
}
