import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { BundleMcpServer, Receipt } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';
import { SseParser } from './sse-parser.ts';
import { startTestMcpServer, type TestMcpServer } from './testing/test-mcp-server.ts';

/**
 * The agent-facing lean path, seen on the wire: a session opened by the SDK client, then raw
 * POSTs on it. Plain requests are answered as JSON, or as SSE when progress streams; anything
 * unusual gets the SDK transport's own answer, as before.
 */

let upstream: TestMcpServer;
let gateway: TestGateway;
let client: Client;
let session: { id: string; version: string };

beforeAll(async () => {
  upstream = await startTestMcpServer();
  gateway = await startTestGateway();
  const server: BundleMcpServer = {
    name: 'github',
    url: upstream.url,
    headers: [],
    drift: 'warn',
    pins: {},
  };
  await gateway.applyPolicies([], [], [server]);
  client = new Client({ name: 'agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp/github`));
  await client.connect(transport);
  session = { id: transport.sessionId as string, version: transport.protocolVersion as string };
});

afterAll(async () => {
  await client.close();
  await gateway.close();
  await upstream.close();
});

function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gateway.url}/mcp/github`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': session.id,
      'mcp-protocol-version': session.version,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

async function events(response: Response): Promise<Array<Record<string, unknown>>> {
  const parser = new SseParser();
  return parser.push(await response.text()).map((e) => JSON.parse(e.data));
}

const call = (id: number, name: string, args: object, meta?: object) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

async function receipts(): Promise<Receipt[]> {
  return (await servedReceipts(gateway.spool)).filter((r) => r.surface === 'mcp');
}

describe('the lean agent path', () => {
  it('answers a plain tools/call with one JSON response, receipted', async () => {
    const before = (await receipts()).length;
    const response = await post(call(7, 'search', { q: 'lean' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('mcp-session-id')).toBe(session.id);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { content: [{ type: 'text', text: 'results for lean' }] },
    });
    expect(upstream.calls.at(-1)).toEqual({ name: 'search', arguments: { q: 'lean' } });
    const last = (await receipts()).slice(before);
    expect(last.map((r) => [r.mcp?.method, r.outcome.status])).toEqual([['tools/call', 200]]);
  });

  it('streams progress as SSE: each notification as it comes, then the response', async () => {
    const response = await post(call(8, 'count', { n: 3 }, { progressToken: 'p-8' }));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await events(response)).toEqual([
      ...[1, 2, 3].map((progress) => ({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p-8', progress, total: 3 },
      })),
      { jsonrpc: '2.0', id: 8, result: { content: [{ type: 'text', text: 'counted to 3' }] } },
    ]);
    // A progress token on a call that makes none: still one JSON answer.
    const quiet = await post(call(9, 'weather', { city: 'Oslo' }, { progressToken: 'p-9' }));
    expect(quiet.headers.get('content-type')).toBe('application/json');
  });

  it('answers ping, tools/list, a refusal and a pass-through as JSON', async () => {
    const ping = await post({ jsonrpc: '2.0', id: 'ping-1', method: 'ping' });
    expect(await ping.json()).toEqual({ jsonrpc: '2.0', id: 'ping-1', result: {} });
    const list = await post({ jsonrpc: '2.0', id: 10, method: 'tools/list' });
    const listed = (await list.json()) as { result: { tools: unknown[] } };
    expect(listed.result.tools.length).toBe(upstream.tools().length);
    const unknown = await post(call(11, 'nope', {}));
    expect(await unknown.json()).toEqual({
      jsonrpc: '2.0',
      id: 11,
      error: { code: -32602, message: 'Unknown tool: nope' },
    });
    const read = await post({
      jsonrpc: '2.0',
      id: 12,
      method: 'resources/read',
      params: { uri: 'test://readme' },
    });
    const contents = (await read.json()) as { result: { contents: Array<{ text: string }> } };
    expect(contents.result.contents[0]?.text).toBe('read me');
  });

  it('leaves everything unusual to the SDK transport, which answers as before', async () => {
    // A batch: the SDK's SSE answer.
    const batch = await post([call(20, 'search', { q: 'a' }), call(21, 'search', { q: 'b' })]);
    expect(batch.headers.get('content-type')).toBe('text/event-stream');
    expect((await events(batch)).map((m) => m.id)).toEqual([20, 21]);
    // Headers the SDK transport refuses.
    const accept = await post(call(22, 'search', {}), { accept: 'application/json' });
    expect(accept.status).toBe(406);
    const version = await post(call(23, 'search', {}), { 'mcp-protocol-version': '1999-01-01' });
    expect(version.status).toBe(400);
    // Params its schema refuses: the SDK's error, on its SSE stream.
    const invalid = await post({ jsonrpc: '2.0', id: 24, method: 'tools/call', params: {} });
    expect(invalid.headers.get('content-type')).toBe('text/event-stream');
    expect((await events(invalid))[0]).toMatchObject({ id: 24, error: { code: -32603 } });
    // An unknown session: 404, as ever.
    const gone = await post(call(25, 'search', {}), { 'mcp-session-id': 'not-a-session' });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ error: { code: -32001 } });
  });

  it('stops a lean call the agent cancels: 202, and its stream ends without a response', async () => {
    const response = await post(call(30, 'count', { n: 40 }, { progressToken: 'p-30' }));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('notifications/progress');
    const cancelled = await post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 30, reason: 'changed my mind' },
    });
    expect(cancelled.status).toBe(202);
    let rest = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest).not.toContain('"id":30');
  });
});
