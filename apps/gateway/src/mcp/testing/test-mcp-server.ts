import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer, type IncomingHttpHeaders } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * A real MCP server (the official SDK, Streamable HTTP, stateful sessions) for tests and benches:
 * several tools, one whose definition a test can change (`weather`), one that streams progress
 * (`count`), one that errors (`fail`), plus a resource and a prompt to pass through. Tools are
 * listed in pages of `pageSize` when given.
 */
export interface TestMcpServerOptions {
  /** Tools per `tools/list` page; all in one page when absent. */
  pageSize?: number;
  port?: number;
}

export interface TestMcpServer {
  /** The Streamable HTTP endpoint: `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** Every tools/call it received, in order (name and arguments as the gateway sent them). */
  calls: Array<{ name: string; arguments: Record<string, unknown> | undefined }>;
  /** For each of those calls, its `params._meta` and the HTTP request's headers. */
  received: Array<{ meta: Record<string, unknown> | undefined; headers: IncomingHttpHeaders }>;
  /** The headers of the last HTTP request it received (what the gateway sent upstream). */
  lastHeaders(): IncomingHttpHeaders;
  /** Open sessions. */
  sessions(): number;
  /** Changes a tool's definition (a rug pull) and tells every session its list changed. */
  setDefinition(name: string, patch: Partial<Tool>): Promise<void>;
  /** The tools as currently defined. */
  tools(): Tool[];
  close(): Promise<void>;
}

const OBJECT = 'object' as const;

function initialTools(): Tool[] {
  return [
    {
      name: 'create_issue',
      description: 'Open an issue in a repository',
      inputSchema: {
        type: OBJECT,
        properties: { repo: { type: 'string' }, title: { type: 'string' } },
        required: ['title'],
      },
    },
    {
      name: 'delete_repo',
      description: 'Delete a repository',
      inputSchema: { type: OBJECT, properties: { repo: { type: 'string' } } },
    },
    {
      name: 'search',
      description: 'Search code',
      inputSchema: { type: OBJECT, properties: { q: { type: 'string' } } },
    },
    {
      name: 'weather',
      description: 'Current weather for a city',
      inputSchema: { type: OBJECT, properties: { city: { type: 'string' } } },
    },
    {
      name: 'count',
      description: 'Counts to n, reporting progress at each step',
      inputSchema: { type: OBJECT, properties: { n: { type: 'number' } } },
    },
    {
      name: 'fail',
      description: 'Always fails',
      inputSchema: { type: OBJECT, properties: {} },
    },
  ];
}

export async function startTestMcpServer(
  options: TestMcpServerOptions = {},
): Promise<TestMcpServer> {
  let tools = initialTools();
  const calls: TestMcpServer['calls'] = [];
  const received: TestMcpServer['received'] = [];
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const servers = new Set<Server>();
  let lastHeaders: IncomingHttpHeaders = {};

  function newServer(): Server {
    const server = new Server(
      { name: 'test-mcp', version: '1.0.0' },
      {
        capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} },
        instructions: 'A test server.',
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      const size = options.pageSize ?? tools.length;
      const start = Number(request.params?.cursor ?? 0);
      const page = tools.slice(start, start + size);
      const next = start + size < tools.length ? String(start + size) : undefined;
      return { tools: page, ...(next !== undefined ? { nextCursor: next } : {}) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { name, arguments: args } = request.params;
      calls.push({ name, arguments: args });
      received.push({ meta: request.params._meta, headers: extra.requestInfo?.headers ?? {} });
      const text = (value: string): CallToolResult => ({
        content: [{ type: 'text', text: value }],
      });
      switch (name) {
        case 'create_issue':
          return text(`created issue "${String(args?.title)}"`);
        case 'delete_repo':
          return text(`deleted ${String(args?.repo)}`);
        case 'search':
          return text(`results for ${String(args?.q)}`);
        case 'weather':
          return text(`sunny in ${String(args?.city)}`);
        case 'count': {
          const n = Number(args?.n ?? 3);
          const token = extra._meta?.progressToken;
          for (let i = 1; i <= n; i++) {
            if (token !== undefined) {
              await extra.sendNotification({
                method: 'notifications/progress',
                params: { progressToken: token, progress: i, total: n },
              });
            }
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          return text(`counted to ${n}`);
        }
        case 'fail':
          return { content: [{ type: 'text', text: 'it failed' }], isError: true };
        default:
          throw new Error(`unknown tool ${name}`);
      }
    });
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: [{ uri: 'test://readme', name: 'readme', mimeType: 'text/plain' }],
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({
      contents: [{ uri: request.params.uri, mimeType: 'text/plain', text: 'read me' }],
    }));
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({
      prompts: [{ name: 'greet', description: 'Say hello' }],
    }));
    server.setRequestHandler(GetPromptRequestSchema, async () => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }],
    }));
    return server;
  }

  const http: HttpServer = createServer(async (request, response) => {
    lastHeaders = request.headers;
    const id = request.headers['mcp-session-id'];
    const known = typeof id === 'string' ? transports.get(id) : undefined;
    if (known) return known.handleRequest(request, response);
    if (typeof id === 'string') {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32001, message: 'Session not found' },
        }),
      );
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        transports.set(sessionId, transport);
      },
      onsessionclosed: (sessionId) => {
        transports.delete(sessionId);
      },
    });
    const server = newServer();
    servers.add(server);
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
      servers.delete(server);
    };
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, '127.0.0.1', resolve));
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    received,
    lastHeaders: () => lastHeaders,
    sessions: () => transports.size,
    tools: () => tools,
    async setDefinition(name, patch) {
      tools = tools.map((tool) => (tool.name === name ? { ...tool, ...patch } : tool));
      await Promise.all([...servers].map((s) => s.sendToolListChanged().catch(() => {})));
    },
    async close() {
      await Promise.all([...servers].map((s) => s.close().catch(() => {})));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
