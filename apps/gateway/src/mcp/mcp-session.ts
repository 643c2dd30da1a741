import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type ClientCapabilities,
  ErrorCode,
  type JSONRPCRequest,
  type ListToolsRequest,
  ListToolsRequestSchema,
  McpError,
  ResultSchema,
  type ServerCapabilities,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { BundleMcpServer, JsonObject } from '@toolgate/core';
import type { ActiveBundle } from '../bundle/bundle-store.ts';
import { type RelayedRequest, relayAgentRequests } from './agent-requests.ts';
import { mediateCall } from './call-mediation.ts';
import { LeanAgentEndpoint } from './lean-agent.ts';
import { refuseCursor, servedTools } from './list-mediation.ts';
import type { McpProxyDependencies } from './mcp-proxy.ts';
import type { McpFinished } from './mcp-receipts.ts';
import type { McpRequestContext } from './mcp-request.ts';
import { mediatedList } from './mediation-cache.ts';
import type { AgentRequestFacts } from './request-context.ts';
import { fetchToolCatalog, type ToolCatalog } from './tool-catalog.ts';
import { sdkToolCaller, type UpstreamToolCaller, upstreamFailure } from './upstream-client.ts';
import { unprefixErrorsOf } from './wire-errors.ts';

/** What a handler gets of its request besides the message: the SDK's `extra`, or the lean path's. */
export interface HandlerExtra {
  authInfo?: AuthInfo | undefined;
  signal: AbortSignal;
  sessionId?: string | undefined;
  requestId: string | number;
  sendNotification: (notification: { method: string; params: JsonObject }) => Promise<void>;
}

/** Requests passed through to the upstream unmediated (but receipted): docs/mcp.md. */
const PASSED_THROUGH =
  /^(resources\/(list|templates\/list|read|subscribe|unsubscribe)|prompts\/(list|get)|completion\/complete|logging\/setLevel)$/;

/**
 * One agent session on `/mcp/<server>`: the SDK `Server` and Streamable HTTP transport the agent
 * talks to, and the SDK `Client` on its own upstream session. Tool lists and calls go through
 * the gateway's mediation; resources, prompts, completion and logging pass through; upstream
 * notifications (list changes, resource updates, log messages) are forwarded to the agent.
 */
export class McpSession {
  readonly transport: StreamableHTTPServerTransport;
  readonly agentServer: Server;
  /** The agent's plain JSON-RPC POSTs, served without the SDK transport. */
  readonly lean: LeanAgentEndpoint;
  /** When the agent last sent a request (idle sessions expire). */
  lastUsed = Date.now();
  /** The upstream's list as last fetched; tools/call resolves names against it. */
  private catalog: ToolCatalog | undefined;
  private closed = false;
  /** The SDK client on the upstream session; replaced when the upstream lost the session. */
  private client: Client;
  /** How tools/call reaches the upstream. */
  private upstream: UpstreamToolCaller;
  /** Bumped each time the upstream session is renewed; see `renewed`. */
  private generation = 0;
  private renewing: Promise<void> | undefined;
  /** What the agent was last served by tools/list, for whom: a bundle change is compared to it. */
  private lastServed: { facts: AgentRequestFacts; tools: string } | undefined;

  constructor(
    readonly server: BundleMcpServer,
    /** Who opened the session (the agent's token, hashed): only they may use it. */
    readonly owner: string,
    client: Client,
    private readonly deps: McpProxyDependencies,
    private readonly context: (server: string, authInfo: unknown) => McpRequestContext,
    onInitialized: (session: McpSession, id: string) => void,
    onClosed: (id: string) => void,
    private readonly upstreams: {
      /** How tools/call reaches the upstream on a client's session: lean, or the SDK client. */
      callerFor?: (client: Client) => UpstreamToolCaller;
      /** A new upstream session (for when the upstream lost this one); none: never renewed. */
      reconnect?: () => Promise<Client>;
      /**
       * The client features the upstream client declared for the agent (relayAgentRequests),
       * and who the agent proved to be at `initialize`, for the receipts of those requests.
       */
      relay?: { declared: ClientCapabilities; authInfo: AuthInfo };
    } = {},
  ) {
    this.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => onInitialized(this, id),
      onsessionclosed: (id) => onClosed(id),
    });
    this.client = client;
    this.upstream = (upstreams.callerFor ?? sdkToolCaller)(client);
    const upstream = client.getServerVersion();
    this.agentServer = new Server(
      { name: upstream?.name ?? server.name, version: upstream?.version ?? '0.0.0' },
      {
        capabilities: agentCapabilities(client.getServerCapabilities()),
        ...(client.getInstructions() ? { instructions: client.getInstructions() as string } : {}),
      },
    );
    this.registerHandlers();
    this.lean = new LeanAgentEndpoint(this);
    this.wire(client);
  }

  /** Upstream notifications: list changes refetched then forwarded, the rest forwarded as they are. */
  private wire(client: Client): void {
    const relay = this.upstreams.relay;
    if (relay !== undefined) {
      relayAgentRequests(client, this.agentServer, {
        declared: relay.declared,
        timeoutMs: this.deps.options.upstreamTimeoutMs,
        finished: (relayed) => this.relayed(relayed, relay.authInfo),
      });
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      // Refetched (drift found and reported) before the agent hears of it.
      this.catalog = undefined;
      await this.tools(undefined).catch(() => {});
      await this.agentServer.sendToolListChanged().catch(() => {});
    });
    client.fallbackNotificationHandler = async (notification) => {
      await this.agentServer.notification(notification as never).catch(() => {});
    };
  }

  /**
   * Runs one upstream request. When the upstream answers 404 for its session (it restarted, or
   * expired the session), the request never reached a tool: a new upstream session is opened
   * for this agent session (once, however many requests found it lost) and the request is sent
   * once more. The agent sees nothing of it.
   */
  private async upstreamRequest<T>(send: () => Promise<T>): Promise<T> {
    const generation = this.generation;
    try {
      return await send();
    } catch (error) {
      if (!upstreamSessionLost(error) || this.closed || !this.upstreams.reconnect) throw error;
      await this.renew(generation);
      return send();
    }
  }

  /** A new upstream session, unless one newer than `generation` was already opened. */
  private async renew(generation: number): Promise<void> {
    if (this.generation !== generation) return;
    this.renewing ??= (async () => {
      const reconnect = this.upstreams.reconnect as () => Promise<Client>;
      const client = await reconnect();
      const old = this.client;
      this.client = client;
      this.upstream = (this.upstreams.callerFor ?? sdkToolCaller)(client);
      this.wire(client);
      this.generation++;
      this.deps.log.info({ server: this.server.name }, 'MCP upstream session renewed');
      // The old session is gone upstream: closed here without a DELETE.
      await old.close().catch(() => {});
      if (this.closed) await this.close(true);
    })().finally(() => {
      this.renewing = undefined;
    });
    await this.renewing;
  }

  /**
   * A new bundle is in force: when it changes what this session's tool list would be (a rule,
   * a pin), the agent is told (`notifications/tools/list_changed`, on its GET stream) so it
   * lists again. Only sessions that listed are compared, against what they were served.
   */
  bundleChanged(active: ActiveBundle): void {
    const served = this.lastServed;
    const catalog = this.catalog;
    if (this.closed || served === undefined || catalog === undefined) return;
    const server = active.bundle.mcpServers.find((s) => s.name === this.server.name);
    if (server === undefined) return;
    let tools: string;
    try {
      tools = JSON.stringify(servedTools(mediatedList(active, server, catalog, served.facts)));
    } catch {
      return;
    }
    if (tools === served.tools) return;
    this.lastServed = { facts: served.facts, tools };
    void this.agentServer.sendToolListChanged().catch(() => {});
  }

  async connect(): Promise<void> {
    unprefixErrorsOf(this.transport);
    await this.agentServer.connect(this.transport);
  }

  async close(renewed = false): Promise<void> {
    if (this.closed && !renewed) return;
    this.closed = true;
    // A session renewed while it closed: only the new upstream session is left to end.
    if (!renewed) await this.agentServer.close().catch(() => {});
    const upstream = this.client.transport as { terminateSession?: () => Promise<void> };
    await upstream.terminateSession?.().catch(() => {});
    await this.client.close().catch(() => {});
  }

  /** The upstream's complete list: fetched when asked to refresh or never fetched. */
  private async tools(signal: AbortSignal | undefined, refresh = false): Promise<ToolCatalog> {
    if (this.catalog && !refresh) return this.catalog;
    const catalog = await this.upstreamRequest(() =>
      fetchToolCatalog(this.client, this.server.name, {
        timeoutMs: this.deps.options.upstreamTimeoutMs,
        ...(signal ? { signal } : {}),
      }),
    );
    this.catalog = catalog;
    this.deps.reporter?.observe(
      this.server.name,
      catalog.fingerprint,
      catalog.tools.map((t) => t.definition),
    );
    return catalog;
  }

  private registerHandlers(): void {
    this.agentServer.fallbackRequestHandler = (request, extra) => this.passThrough(request, extra);
    // The SDK refuses handlers for a capability the server does not declare.
    if (this.client.getServerCapabilities()?.tools) this.registerToolHandlers();
  }

  private registerToolHandlers(): void {
    this.agentServer.setRequestHandler(ListToolsRequestSchema, (request, extra) =>
      this.listTools(request, extra),
    );
    this.agentServer.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      this.callTool(request, extra),
    );
  }

  /** Whether the agent may list and call tools (the upstream declared the capability). */
  get servesTools(): boolean {
    return this.client.getServerCapabilities()?.tools !== undefined;
  }

  get sessionId(): string | undefined {
    return this.transport.sessionId;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** `tools/list`: the upstream's complete list, drift-checked and mediated, in one page. */
  async listTools(request: ListToolsRequest, extra: HandlerExtra): Promise<never> {
    const { metrics } = this.deps;
    const serverName = this.server.name;
    if (request.params?.cursor !== undefined) throw refuseCursor();
    const context = this.context(serverName, extra.authInfo);
    let catalog: ToolCatalog;
    try {
      catalog = await this.tools(extra.signal, true);
    } catch (error) {
      const failure = upstreamFailure(error, serverName);
      await this.finish(context, 'tools/list', extra.sessionId, {
        status: 502,
        error: failure.message,
        upstreamMs: 0,
        mcpError: { code: failure.code, message: failure.message },
      });
      throw new McpError(failure.code, failure.message);
    }
    const mediating = performance.now();
    const list = mediatedList(context.active, context.server, catalog, context.facts);
    for (const drift of list.drift.drifted) {
      metrics.mcpDrifts.inc({ server: serverName, action: drift.action });
    }
    context.record.mediation = list.mediation;
    context.record.mediationMs = performance.now() - mediating;
    const tools = servedTools(list);
    this.lastServed = { facts: context.facts, tools: JSON.stringify(tools) };
    // Receipted when the agent was served something other than the upstream's list.
    if (list.mediation.changed || list.drift.drifted.length > 0) {
      await this.finish(context, 'tools/list', extra.sessionId, {
        status: 200,
        upstreamMs: 0,
        ...(list.drift.drifted.length > 0 ? { drifted: list.drift.drifted } : {}),
      });
    } else metrics.mcpRequests.inc({ method: 'tools/list', outcome: 'ok' });
    return { tools } as never;
  }

  /** `tools/call`: resolved, judged and forwarded by `mediateCall`, receipted. */
  async callTool(request: CallToolRequest, extra: HandlerExtra): Promise<never> {
    const { metrics } = this.deps;
    const serverName = this.server.name;
    const context = this.context(serverName, extra.authInfo);
    if (this.deps.receipts.full()) {
      metrics.spoolRejected.inc();
      throw new McpError(ErrorCode.InternalError, 'gateway receipt spool is full; retry later');
    }
    let catalog: ToolCatalog;
    try {
      catalog = await this.tools(extra.signal);
    } catch (error) {
      const failure = upstreamFailure(error, serverName);
      metrics.mcpToolCalls.inc({ server: serverName, outcome: 'upstream_error' });
      await this.finish(context, 'tools/call', extra.sessionId, {
        status: 502,
        error: failure.message,
        upstreamMs: 0,
        mcpError: { code: failure.code, message: failure.message },
      });
      throw new McpError(failure.code, failure.message);
    }
    const progressToken = request.params._meta?.progressToken;
    const upstream: UpstreamToolCaller = {
      callTool: (params, options) =>
        this.upstreamRequest(() => this.upstream.callTool(params, options)),
    };
    const trace = this.deps.tracing?.mcpCall({
      server: serverName,
      name: request.params.name,
      requestId: extra.requestId,
      sessionId: extra.sessionId,
      meta: request.params._meta,
      httpParent: context.facts.traceParent,
      startedAt: context.facts.started,
      identity: context.facts.identity,
      receiptId: context.record.id,
    });
    const outcome = await mediateCall(context, upstream, catalog, {
      name: request.params.name,
      ...(request.params.arguments ? { arguments: request.params.arguments } : {}),
      ...(progressToken !== undefined ? { progressToken } : {}),
      requestId: extra.requestId,
      signal: extra.signal,
      sendProgress: (params) =>
        extra.sendNotification({ method: 'notifications/progress', params } as never),
      ...(trace ? { trace } : {}),
      forwarded: () => this.deps.receipts.draftSoon(context.record),
    });
    trace?.end({
      outcome: outcome.outcome,
      evidence: outcome.finished.response?.tool_calls[0],
      mcpError: outcome.finished.mcpError,
    });
    const decision = outcome.finished.response?.tool_calls[0]?.decision;
    if (decision?.rule !== undefined && outcome.outcome === 'withheld') {
      metrics.withheldCalls.inc({ outcome: decision.outcome, rule: decision.rule });
    }
    try {
      await this.finish(context, 'tools/call', extra.sessionId, outcome.finished);
    } catch (error) {
      metrics.mcpToolCalls.inc({ server: serverName, outcome: 'not_recorded' });
      throw error;
    }
    metrics.mcpToolCalls.inc({ server: serverName, outcome: outcome.outcome });
    if ('error' in outcome.answer) throw outcome.answer.error;
    return outcome.answer.result as never;
  }

  /** resources/*, prompts/*, completion, logging: forwarded as they are, receipted. */
  async passThrough(
    request: JSONRPCRequest,
    extra: { authInfo?: AuthInfo; signal: AbortSignal; sessionId?: string },
  ): Promise<never> {
    const serverName = this.server.name;
    {
      if (!PASSED_THROUGH.test(request.method)) {
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
      }
      const context = this.context(serverName, extra.authInfo);
      const sent = performance.now();
      let result: unknown;
      try {
        result = await this.upstreamRequest(() =>
          this.client.request(
            { method: request.method, params: request.params as JsonObject },
            ResultSchema,
            { timeout: this.deps.options.upstreamTimeoutMs, signal: extra.signal },
          ),
        );
      } catch (error) {
        const failure = upstreamFailure(error, serverName);
        await this.finish(context, request.method, extra.sessionId, {
          status: 502,
          error: failure.message,
          upstreamMs: performance.now() - sent,
          mcpError: { code: failure.code, message: failure.message },
        });
        throw new McpError(failure.code, failure.message);
      }
      await this.finish(context, request.method, extra.sessionId, {
        status: 200,
        upstreamMs: performance.now() - sent,
      });
      return result as never;
    }
  }

  /** The receipt of a request the upstream sent the agent (sampling, elicitation, roots). */
  private async relayed(relayed: RelayedRequest, authInfo: AuthInfo): Promise<void> {
    const context = this.context(this.server.name, authInfo);
    await this.finish(context, relayed.method, this.sessionId, {
      status: relayed.ok ? 200 : 502,
      upstreamMs: relayed.ms,
      ...(relayed.error ? { error: relayed.error.message, mcpError: relayed.error } : {}),
    });
  }

  /**
   * Spools the request's receipt; throws the JSON-RPC error the agent gets when it cannot be
   * recorded. Returns whether it was.
   */
  private async finish(
    context: McpRequestContext,
    method: string,
    session: string | undefined,
    finished: Omit<McpFinished, 'mcp'> & {
      mcpError?: { code: number; message: string };
      drifted?: NonNullable<McpFinished['mcp']['drifted']>;
    },
  ): Promise<boolean> {
    const { mcpError, drifted, ...rest } = finished;
    const recorded = await this.deps.receipts.record(context.record, {
      ...rest,
      mcp: {
        server: this.server.name,
        method,
        ...(session ? { session } : {}),
        ...(mcpError ? { error: mcpError } : {}),
        ...(drifted ? { drifted } : {}),
      },
    });
    this.deps.metrics.mcpRequests.inc({
      method,
      outcome: finished.status === 200 && recorded.ok ? 'ok' : 'error',
    });
    if (!recorded.ok) throw new McpError(ErrorCode.InternalError, recorded.message);
    return true;
  }
}

/** The upstream answered 404 for its session id: the session is gone there, the request unread. */
function upstreamSessionLost(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}

/** What the agent is told the server can do: the upstream's capabilities, tools' list changes always. */
function agentCapabilities(upstream: ServerCapabilities | undefined): ServerCapabilities {
  const out: ServerCapabilities = {};
  if (upstream?.tools) out.tools = { listChanged: true };
  if (upstream?.resources) out.resources = upstream.resources;
  if (upstream?.prompts) out.prompts = upstream.prompts;
  if (upstream?.completions) out.completions = upstream.completions;
  if (upstream?.logging) out.logging = upstream.logging;
  return out;
}
