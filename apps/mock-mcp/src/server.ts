import { randomUUID, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallLog } from './call-log.ts';
import { createDemoServer, DEMO_TOOLS, type DemoToolName, TOOL_DESCRIPTIONS } from './tools.ts';

export { LOGGED_ARGUMENTS_BYTES, type LoggedCall } from './call-log.ts';
export {
  DEMO_TOOLS,
  type DemoToolName,
  LONG_TASK_LIMITS,
  SERVER_INFO,
  TOOL_DESCRIPTIONS,
} from './tools.ts';

/** The MCP endpoint's path (unless `path` says otherwise). */
export const MCP_PATH = '/mcp';
/** A POST body to /mcp larger than this is refused (413) before it is parsed. */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;
/** A body to the `/__mock` control routes. */
const MAX_CONTROL_BODY_BYTES = 16 * 1024;
const MAX_DESCRIPTION = 4096;

export interface MockMcpOptions {
  host?: string;
  /** 0 (default): any free port. */
  port?: number;
  /** The MCP endpoint's path, `/mcp` by default (a test may mimic a gateway's `/mcp/<server>`). */
  path?: string;
  /** When set, /mcp requires exactly `Authorization: Bearer <requireKey>` (401 otherwise). */
  requireKey?: string;
  maxSessions?: number;
  sessionIdleMs?: number;
  callLogSize?: number;
  /** info: sessions and tool calls (names only); warn: problems only. */
  logLevel?: 'info' | 'warn' | 'silent';
}

export interface MockMcp {
  /** The MCP endpoint (`<origin>/mcp`): what an McpServer's `spec.url` or a client points at. */
  url: string;
  origin: string;
  /** The last tool calls answered, oldest first. */
  calls: CallLog;
  /** Open MCP sessions. */
  sessions(): number;
  /**
   * Changes a tool's description for every session, open and new (a drift: open sessions get
   * `notifications/tools/list_changed`); `undefined` restores the original.
   */
  setDescription(tool: DemoToolName, description: string | undefined): void;
  /** Closes every session and the listener. */
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  tools: Record<DemoToolName, RegisteredTool>;
  lastSeen: number;
}

/**
 * The demo MCP server: MCP Streamable HTTP at `/mcp` with stateful sessions (`Mcp-Session-Id`),
 * served by the official SDK's `McpServer` and `StreamableHTTPServerTransport` on plain
 * node:http (no framework in front, so a benchmark's "direct" figure is the SDK's own cost).
 */
export async function createMockMcp(options: MockMcpOptions = {}): Promise<MockMcp> {
  const maxSessions = options.maxSessions ?? 1000;
  const idleMs = options.sessionIdleMs ?? 600_000;
  const level = options.logLevel ?? 'warn';
  const log = (severity: 'info' | 'warn', line: string) => {
    if (level === 'silent' || (level === 'warn' && severity === 'info')) return;
    process.stdout.write(`${severity === 'warn' ? 'WARN ' : ''}${line}\n`);
  };
  const calls = new CallLog(options.callLogSize ?? 1000);
  const sessions = new Map<string, Session>();
  const descriptions = new Map<DemoToolName, string>();
  let pending = 0;
  const mcpPath = options.path ?? MCP_PATH;
  const requiredKey = options.requireKey ? Buffer.from(`Bearer ${options.requireKey}`) : undefined;

  const description = (tool: DemoToolName) => descriptions.get(tool) ?? TOOL_DESCRIPTIONS[tool];

  function openSession(): StreamableHTTPServerTransport {
    const { server, tools } = createDemoServer({
      description,
      onCall: (tool, args, session) => {
        calls.add({ tool, arguments: args, session });
        log('info', `tools/call ${tool} (session ${session?.slice(0, 8) ?? '-'})`);
      },
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      maxRequestBodySize: MAX_MCP_BODY_BYTES,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, tools, lastSeen: Date.now() });
        log('info', `session ${id.slice(0, 8)} opened (${sessions.size} open)`);
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id && sessions.delete(id)) log('info', `session ${id.slice(0, 8)} closed`);
    };
    void server.connect(transport);
    return transport;
  }

  async function handleMcp(request: IncomingMessage, response: ServerResponse) {
    if (requiredKey && !sameBytes(request.headers.authorization, requiredKey)) {
      return jsonRpcError(response, 401, -32001, 'Unauthorized: a Bearer key is required');
    }
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session) return jsonRpcError(response, 404, -32001, 'Session not found');
      session.lastSeen = Date.now();
      return session.transport.handleRequest(request, response);
    }
    if (request.method !== 'POST') {
      return jsonRpcError(response, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    // Counted before the session exists, so a burst of initializes cannot overshoot the bound.
    if (sessions.size + pending >= maxSessions) {
      return jsonRpcError(response, 503, -32000, `Too many sessions (at most ${maxSessions})`);
    }
    pending++;
    const transport = openSession();
    try {
      await transport.handleRequest(request, response);
    } finally {
      pending--;
      // Not an initialize (the transport answered with an error): nothing to keep.
      if (transport.sessionId === undefined) await transport.close();
    }
  }

  function setDescription(tool: DemoToolName, text: string | undefined) {
    if (text === undefined) descriptions.delete(tool);
    else descriptions.set(tool, text);
    // `update` sends notifications/tools/list_changed to the session's client.
    for (const session of sessions.values()) {
      session.tools[tool].update({ description: description(tool) });
    }
  }

  async function handleControl(request: IncomingMessage, response: ServerResponse, url: URL) {
    if (url.pathname === '/healthz' && request.method === 'GET') {
      return json(response, 200, { status: 'ok', sessions: sessions.size });
    }
    if (url.pathname === '/__mock/calls') {
      if (request.method === 'DELETE') {
        calls.clear();
        response.writeHead(204).end();
        return;
      }
      if (request.method === 'GET') {
        const limit = url.searchParams.get('limit');
        if (limit !== null && !/^[1-9]\d{0,3}$/.test(limit)) {
          return json(response, 400, { error: 'limit: must be an integer from 1 to 9999' });
        }
        return json(response, 200, {
          total: calls.total,
          calls: calls.last(limit === null ? undefined : Number(limit)),
        });
      }
    }
    const tool = /^\/__mock\/tools\/([^/]+)$/.exec(url.pathname)?.[1];
    if (tool !== undefined && request.method === 'PUT') {
      if (!DEMO_TOOLS.includes(tool as DemoToolName)) {
        return json(response, 404, {
          error: `no tool ${tool}; the tools are ${DEMO_TOOLS.join(', ')}`,
        });
      }
      const body = await readJson(request, MAX_CONTROL_BODY_BYTES);
      if (!body.ok) return json(response, body.status, { error: body.error });
      const given = (body.value as { description?: unknown } | null)?.description;
      if (
        given !== undefined &&
        (typeof given !== 'string' || given.length === 0 || given.length > MAX_DESCRIPTION)
      ) {
        return json(response, 400, {
          error: `description: must be a string of 1 to ${MAX_DESCRIPTION} characters (omit it to restore)`,
        });
      }
      setDescription(tool as DemoToolName, given);
      return json(response, 200, { tool, description: description(tool as DemoToolName) });
    }
    return json(response, 404, { error: `no route ${request.method} ${url.pathname}` });
  }

  const http = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://mock');
    const handled =
      url.pathname === mcpPath
        ? handleMcp(request, response)
        : handleControl(request, response, url);
    handled.catch((error: Error) => {
      log('warn', `${request.method} ${url.pathname} failed: ${error.message}`);
      if (!response.headersSent) jsonRpcError(response, 500, -32603, 'Internal error');
      else response.destroy();
    });
  });
  http.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(http, 'listening');

  const sweep = setInterval(
    () => {
      const cutoff = Date.now() - idleMs;
      for (const [id, session] of sessions) {
        if (session.lastSeen < cutoff) {
          log('info', `session ${id.slice(0, 8)} idle for ${idleMs} ms: closing it`);
          void session.transport.close();
        }
      }
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();

  const { port } = http.address() as AddressInfo;
  const origin = `http://${options.host ?? '127.0.0.1'}:${port}`;
  return {
    url: `${origin}${mcpPath}`,
    origin,
    calls,
    sessions: () => sessions.size,
    setDescription,
    close: async () => {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((s) => s.transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function sameBytes(given: string | undefined, expected: Buffer): boolean {
  if (given === undefined) return false;
  const bytes = Buffer.from(given);
  return bytes.length === expected.length && timingSafeEqual(bytes, expected);
}

function json(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function jsonRpcError(response: ServerResponse, status: number, code: number, message: string) {
  json(response, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

async function readJson(
  request: IncomingMessage,
  limit: number,
): Promise<{ ok: true; value: unknown } | { ok: false; status: number; error: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return { ok: false, status: 413, error: `body: at most ${limit} bytes` };
    chunks.push(chunk);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') };
  } catch {
    return { ok: false, status: 400, error: 'body: must be JSON' };
  }
}
