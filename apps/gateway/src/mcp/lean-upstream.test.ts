import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeanUpstream, UpstreamPools } from './lean-upstream.ts';
import { upstreamFailure } from './upstream-client.ts';

/**
 * The lean upstream client against a scripted Streamable HTTP endpoint: each test's route says
 * how the answer comes (JSON, SSE cut anywhere, too big, too slow, an error) and what the client
 * must make of it.
 */

type Script = (request: JsonRpc, reply: ServerResponse, raw: IncomingMessage) => Promise<void>;
interface JsonRpc {
  id: string;
  method: string;
  params: { name: string; _meta?: { progressToken?: string } };
}

const scripts = new Map<string, Script>();
const seen: Array<{ headers: IncomingMessage['headers']; body: JsonRpc; socket: unknown }> = [];
let server: Server;
let origin: string;
const pools = new UpstreamPools();

beforeAll(async () => {
  server = createServer(async (request, reply) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString()) as JsonRpc;
    seen.push({ headers: request.headers, body, socket: request.socket });
    await scripts.get(new URL(request.url ?? '/', origin).pathname)?.(body, reply, request);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await pools.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function client(
  path: string,
  script: Script,
  extra: { others?: JSONRPCMessage[]; givenUp?: string[]; maxResponseBytes?: number } = {},
) {
  scripts.set(path, script);
  return new LeanUpstream({
    server: 'scripted',
    url: new URL(`${origin}${path}?tenant=a`),
    pool: pools.get(origin),
    headers: { 'x-upstream-key': 'from-the-bundle' },
    sessionId: 'upstream-session-1',
    protocolVersion: '2025-06-18',
    maxResponseBytes: extra.maxResponseBytes ?? 64 * 1024,
    onOtherMessage: (message) => extra.others?.push(message),
    onGivenUp: (id, reason) => extra.givenUp?.push(`${id} ${reason}`),
  });
}

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const options = (timeoutMs = 2000) => ({ timeoutMs, signal: new AbortController().signal });

function sse(reply: ServerResponse): void {
  reply.writeHead(200, { 'content-type': 'text/event-stream' });
}
const event = (message: object) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

describe('LeanUpstream', () => {
  it('sends the session, version and bundle headers and reads a JSON answer', async () => {
    const lean = client('/json', async (request, reply) => {
      reply.writeHead(200, { 'content-type': 'application/json' });
      reply.end(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: text('hi') }));
    });
    expect(await lean.callTool({ name: 'echo', arguments: { a: 1 } }, options())).toEqual(
      text('hi'),
    );
    const last = seen.at(-1);
    expect(last?.headers).toMatchObject({
      'mcp-session-id': 'upstream-session-1',
      'mcp-protocol-version': '2025-06-18',
      'x-upstream-key': 'from-the-bundle',
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
    });
    expect(last?.body).toMatchObject({
      jsonrpc: '2.0',
      method: 'tools/call',
      params: { name: 'echo', arguments: { a: 1 } },
    });
    expect(typeof last?.body.id).toBe('string');
  });

  it('reads an SSE answer cut byte by byte: progress in order, other messages handed on', async () => {
    const others: JSONRPCMessage[] = [];
    const lean = client(
      '/sse-bytes',
      async (request, reply) => {
        const token = request.params._meta?.progressToken;
        const stream = Buffer.from(
          [
            ': keep-alive\r\n\r\n',
            event({
              jsonrpc: '2.0',
              method: 'notifications/progress',
              params: { progressToken: token, progress: 1 },
            }),
            event({
              jsonrpc: '2.0',
              method: 'notifications/message',
              params: { level: 'info', data: 'é☃' },
            }),
            event({
              jsonrpc: '2.0',
              method: 'notifications/progress',
              params: { progressToken: token, progress: 2, total: 2 },
            }),
            event({ jsonrpc: '2.0', id: request.id, result: text('done é☃𝄞') }),
          ].join(''),
        );
        sse(reply);
        for (const byte of stream) {
          reply.write(Buffer.of(byte));
          await new Promise((resolve) => setImmediate(resolve));
        }
        reply.end();
      },
      { others },
    );
    const progress: unknown[] = [];
    const result = await lean.callTool(
      { name: 'count' },
      { ...options(), onprogress: (p) => progress.push(p) },
    );
    expect(result).toEqual(text('done é☃𝄞'));
    expect(progress).toEqual([{ progress: 1 }, { progress: 2, total: 2 }]);
    expect(others).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'é☃' } },
    ]);
  });

  it('answers at the response, without waiting for the stream to end', async () => {
    const lean = client('/sse-open', async (request, reply) => {
      sse(reply);
      reply.write(event({ jsonrpc: '2.0', id: request.id, result: text('early') }));
      await sleep(3000);
      reply.end();
    });
    const started = performance.now();
    expect(await lean.callTool({ name: 'x' }, options())).toEqual(text('early'));
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('reuses its keep-alive connection', async () => {
    const lean = client('/reuse', async (request, reply) => {
      sse(reply);
      reply.end(event({ jsonrpc: '2.0', id: request.id, result: text('ok') }));
    });
    const before = seen.length;
    for (let i = 0; i < 20; i++) await lean.callTool({ name: 'x' }, options());
    // The next call may start while the last answer's end is still in flight: two at most.
    const sockets = new Set(seen.slice(before).map((s) => s.socket));
    expect(sockets.size).toBeLessThanOrEqual(2);
  });

  it("passes the upstream's JSON-RPC error on with its code", async () => {
    const lean = client('/error', async (request, reply) => {
      sse(reply);
      reply.end(
        event({ jsonrpc: '2.0', id: request.id, error: { code: -32602, message: 'no such tool' } }),
      );
    });
    const error = await lean.callTool({ name: 'x' }, options()).catch((e: unknown) => e);
    const failure = upstreamFailure(error, 'scripted');
    expect(failure.code).toBe(-32602);
    expect(failure.message).toBe('MCP server scripted: no such tool');
  });

  it('fails an HTTP error without its body, and an answer ending without a response', async () => {
    const gone = client('/gone', async (_request, reply) => {
      reply.writeHead(404, { 'content-type': 'text/plain' });
      reply.end('secret upstream detail');
    });
    const error = await gone.callTool({ name: 'x' }, options()).catch((e: unknown) => e);
    expect(upstreamFailure(error, 'scripted').message).toBe(
      'MCP server scripted failed (HTTP 404)',
    );
    const odd = client('/odd-type', async (_request, reply) => {
      reply.writeHead(202, { 'content-type': 'text/html' });
      reply.end('<p>hello</p>');
    });
    const oddError = await odd.callTool({ name: 'x' }, options()).catch((e: unknown) => e);
    expect(upstreamFailure(oddError, 'scripted').message).toBe(
      'MCP server scripted failed (an answer neither JSON nor an event stream)',
    );
    const cut = client('/cut', async (_request, reply) => {
      sse(reply);
      reply.end(event({ jsonrpc: '2.0', method: 'notifications/message', params: {} }));
    });
    const closed = await cut.callTool({ name: 'x' }, options()).catch((e: unknown) => e);
    expect(upstreamFailure(closed, 'scripted').message).toBe(
      'MCP server scripted closed the connection',
    );
  });

  it('cuts an answer past maxResponseBytes, in SSE and in JSON', async () => {
    const big = 'x'.repeat(4096);
    const sseBig = client(
      '/big-sse',
      async (request, reply) => {
        sse(reply);
        for (let i = 0; i < 4 && !reply.destroyed; i++) {
          reply.write(event({ jsonrpc: '2.0', method: 'notifications/message', params: { big } }));
          await sleep(5);
        }
        reply.end(event({ jsonrpc: '2.0', id: request.id, result: text('never') }));
      },
      { maxResponseBytes: 8192 },
    );
    const error = await sseBig.callTool({ name: 'x' }, options()).catch((e: unknown) => e);
    expect(upstreamFailure(error, 'scripted').message).toBe(
      'MCP server scripted answered with more than 8192 bytes',
    );
    const jsonBig = client(
      '/big-json',
      async (request, reply) => {
        reply.writeHead(200, { 'content-type': 'application/json' });
        reply.end(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: text(big.repeat(4)) }));
      },
      { maxResponseBytes: 8192 },
    );
    const jsonError = await jsonBig.callTool({ name: 'x' }, options()).catch((e: unknown) => e);
    expect(upstreamFailure(jsonError, 'scripted').message).toMatch(/more than 8192 bytes/);
  });

  it('times out a silent upstream and tells it so; progress resets the clock', async () => {
    const givenUp: string[] = [];
    const silent = client(
      '/silent',
      async (_request, reply) => {
        sse(reply);
        await sleep(1500);
        reply.end();
      },
      { givenUp },
    );
    const error = await silent.callTool({ name: 'x' }, options(200)).catch((e: unknown) => e);
    expect(upstreamFailure(error, 'scripted').message).toBe(
      'MCP server scripted did not answer in time',
    );
    expect(givenUp).toEqual([expect.stringMatching(/^toolgate-\d+ timed out$/)]);
    const slow = client('/slow-progress', async (request, reply) => {
      const token = request.params._meta?.progressToken;
      sse(reply);
      for (let i = 1; i <= 5; i++) {
        await sleep(100);
        reply.write(
          event({
            jsonrpc: '2.0',
            method: 'notifications/progress',
            params: { progressToken: token, progress: i },
          }),
        );
      }
      reply.end(event({ jsonrpc: '2.0', id: request.id, result: text('slow but alive') }));
    });
    const result = await slow.callTool({ name: 'x' }, { ...options(250), onprogress: () => {} });
    expect(result).toEqual(text('slow but alive'));
  });

  it("stops when the agent's signal aborts", async () => {
    const givenUp: string[] = [];
    const hang = client(
      '/hang',
      async (_request, reply) => {
        sse(reply);
        await sleep(1500);
        reply.end();
      },
      { givenUp },
    );
    const agent = new AbortController();
    const pending = hang.callTool({ name: 'x' }, { timeoutMs: 5000, signal: agent.signal });
    setTimeout(() => agent.abort(), 50);
    await expect(pending).rejects.toBeDefined();
    expect(givenUp).toEqual([expect.stringMatching(/cancelled$/)]);
  });

  it('sends nothing when the agent gave up before the call left', async () => {
    const givenUp: string[] = [];
    const before = seen.length;
    const never = client(
      '/never',
      async (_request, reply) => {
        reply.writeHead(200, { 'content-type': 'application/json' });
        reply.end('{}');
      },
      { givenUp },
    );
    const agent = new AbortController();
    agent.abort(new Error('the agent closed the connection'));
    await expect(
      never.callTool({ name: 'x' }, { timeoutMs: 5000, signal: agent.signal }),
    ).rejects.toThrow('the agent closed the connection');
    await sleep(50);
    expect(seen.length).toBe(before);
    expect(givenUp).toEqual([expect.stringMatching(/cancelled$/)]);
  });
});
