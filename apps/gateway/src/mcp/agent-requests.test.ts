import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  type CallToolResult,
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Receipt } from '@toolgate/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';
import { relayedCapabilities } from './agent-requests.ts';

/**
 * Requests an MCP server sends the agent (sampling, elicitation, roots), through the gateway,
 * with the official SDK on both sides: an SDK `McpServer` whose tools ask the client, and SDK
 * `Client` agents that declare (or not) the features and answer (well, with an error, or with
 * a malformed result).
 */

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/** The upstream: each tool asks the client something and returns what it said (or why not). */
function askingServer(): McpServer {
  const server = new McpServer({ name: 'asking', version: '1.0.0' });
  const failed = (error: unknown): CallToolResult => ({
    ...text(`failed: ${(error as Error).message}`),
    isError: true,
  });
  server.registerTool('ask_repo', { description: 'Asks the user which repository' }, async () => {
    try {
      const answer = await server.server.elicitInput({
        message: 'Which repository?',
        requestedSchema: {
          type: 'object',
          properties: { repo: { type: 'string' } },
          required: ['repo'],
        },
      });
      return text(`${answer.action}: ${String(answer.content?.repo)}`);
    } catch (error) {
      return failed(error);
    }
  });
  server.registerTool('summarize', { description: 'Asks the client model' }, async () => {
    try {
      const answer = await server.server.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarize' } }],
        maxTokens: 20,
      });
      return text(`model said: ${(answer.content as { text?: string }).text}`);
    } catch (error) {
      return failed(error);
    }
  });
  server.registerTool('where', { description: 'Asks for the client roots' }, async () => {
    try {
      const { roots } = await server.server.listRoots();
      return text(`roots: ${roots.map((r) => r.uri).join(', ')}`);
    } catch (error) {
      return failed(error);
    }
  });
  return server;
}

let http: HttpServer;
let upstreamUrl: string;
let gateway: TestGateway;
const clients: Client[] = [];

async function startAskingUpstream(): Promise<void> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  http = createServer(async (request, response) => {
    const id = request.headers['mcp-session-id'];
    const known = typeof id === 'string' ? transports.get(id) : undefined;
    if (known) return known.handleRequest(request, response);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void transports.set(sessionId, transport),
    });
    await askingServer().connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  upstreamUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;
}

/** An agent declaring `capabilities`, answering every client request it declared with `answer`. */
async function agent(
  capabilities: ClientCapabilities,
  answer: 'well' | 'error' | 'malformed' = 'well',
): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1.0.0' }, { capabilities });
  const reply = <T>(good: T) => {
    if (answer === 'error') throw new McpError(ErrorCode.InvalidRequest, 'the user said no');
    return (answer === 'malformed' ? { roots: 'everywhere' } : good) as never;
  };
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, () =>
      reply({ action: 'accept', content: { repo: 'acme/app' } }),
    );
  }
  if (capabilities.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, () =>
      reply({ role: 'assistant', model: 'agent-model', content: { type: 'text', text: 'short' } }),
    );
  }
  if (capabilities.roots) {
    client.setRequestHandler(ListRootsRequestSchema, () =>
      reply({ roots: [{ uri: 'file:///work/app', name: 'app' }] }),
    );
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp/asking`)));
  clients.push(client);
  return client;
}

async function receiptsOf(method: string): Promise<Receipt[]> {
  return (await servedReceipts(gateway.spool)).filter((r) => r.mcp?.method === method);
}

async function callText(client: Client, name: string): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: {} })) as CallToolResult;
  const first = result.content[0] as { text?: string };
  return { text: String(first.text), isError: result.isError === true };
}

const ALL: ClientCapabilities = { elicitation: {}, sampling: {}, roots: {} };

beforeAll(async () => {
  await startAskingUpstream();
  gateway = await startTestGateway();
  await gateway.applyPolicies(
    [{ name: 'open', spec: { rules: [] } }],
    [],
    [{ name: 'asking', url: upstreamUrl, headers: [], drift: 'warn', pins: {} }],
  );
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

afterAll(async () => {
  await gateway.close();
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
});

describe('requests an MCP server sends the agent, through the gateway', () => {
  it('relays elicitation, sampling and roots to the agent and its answers back, each receipted', async () => {
    const client = await agent(ALL);
    expect(await callText(client, 'ask_repo')).toEqual({
      text: 'accept: acme/app',
      isError: false,
    });
    expect(await callText(client, 'summarize')).toEqual({
      text: 'model said: short',
      isError: false,
    });
    expect(await callText(client, 'where')).toEqual({
      text: 'roots: file:///work/app',
      isError: false,
    });
    for (const method of ['elicitation/create', 'sampling/createMessage', 'roots/list']) {
      const [receipt] = await receiptsOf(method);
      expect(receipt?.outcome.status, method).toBe(200);
      expect(receipt?.surface).toBe('mcp');
    }
  });

  it('declares upstream only what the agent declared: a server cannot ask for the rest', async () => {
    const client = await agent({ roots: {} });
    const asked = await callText(client, 'ask_repo');
    expect(asked.isError).toBe(true);
    expect(asked.text).toMatch(/does not support (form )?elicitation/i);
    expect((await callText(client, 'where')).text).toBe('roots: file:///work/app');
  });

  it("hands the agent's error back to the server and receipts it as failed", async () => {
    const before = (await receiptsOf('elicitation/create')).length;
    const client = await agent({ elicitation: {} }, 'error');
    const asked = await callText(client, 'ask_repo');
    expect(asked).toEqual({ text: 'failed: MCP error -32600: the user said no', isError: true });
    const receipt = (await receiptsOf('elicitation/create')).at(before);
    expect(receipt?.outcome.status).toBe(502);
    expect(receipt?.mcp?.error).toEqual({ code: -32600, message: 'the user said no' });
  });

  it('refuses a malformed answer of the agent instead of passing it to the server', async () => {
    // The SDK client checks its own sampling and elicitation answers, not its roots.
    const client = await agent({ roots: {} }, 'malformed');
    const asked = await callText(client, 'where');
    expect(asked).toEqual({
      text: "failed: MCP error -32603: the agent's answer could not be used",
      isError: true,
    });
    const receipt = (await receiptsOf('roots/list')).at(-1);
    expect(receipt?.outcome.status).toBe(502);
  });
});

describe('relayedCapabilities', () => {
  it('keeps only the client features, and nothing from a body that is not an initialize', () => {
    const initialize = (capabilities: unknown) => ({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        clientInfo: { name: 'a', version: '1' },
        capabilities,
      },
    });
    expect(
      relayedCapabilities(
        initialize({
          sampling: { tools: {} },
          elicitation: { form: {}, extra: 1 },
          roots: { listChanged: true },
          experimental: { x: {} },
        }),
      ),
    ).toEqual({ sampling: {}, elicitation: { form: {} }, roots: { listChanged: false } });
    expect(relayedCapabilities(initialize({}))).toEqual({});
    expect(relayedCapabilities({ params: { capabilities: 'no' } })).toEqual({});
    expect(relayedCapabilities(null)).toEqual({});
  });
});
