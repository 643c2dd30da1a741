import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, Client, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceiptSink } from '../receipts/receipt-recorder.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';
import { readBody, type UnreadableBodyError } from './agent-http.ts';

const BODY_LIMIT = 64 * 1024;
const chat = (content = 'hi') =>
  JSON.stringify({ model: 'm', messages: [{ role: 'user', content }] });

/** The proxy routes on plain node:http: routing, body limits and failures as Fastify did them. */
describe('the proxy routes', () => {
  let gw: TestGateway;
  // One connection, so a refused request's leftovers would break the next one if not discarded.
  const oneConnection = new Agent({ connections: 1, pipelining: 1 });
  beforeAll(async () => {
    gw = await startTestGateway({ bodyLimit: BODY_LIMIT });
    await gw.applyPolicies([]);
  });
  afterAll(async () => {
    await oneConnection.close();
    await gw.close();
  });

  it('serves a request whose path has a query string, like a provider would', async () => {
    const response = await fetch(`${gw.url}/v1/chat/completions?api-version=2024-10-21`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: chat(),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-toolgate-receipt-id')).toMatch(/^rcpt_/);
    expect(((await response.json()) as { object: string }).object).toBe('chat.completion');
  });

  it('leaves other methods and paths to the 404 handler, in the provider format', async () => {
    for (const [method, path] of [
      ['GET', '/v1/chat/completions'],
      ['POST', '/v1/chat/completions/'],
      ['POST', '/v1/messages/batches'],
    ] as const) {
      const response = await fetch(gw.url + path, {
        method,
        ...(method === 'POST' ? { body: chat(), headers: { 'content-type': 'text/plain' } } : {}),
      });
      expect(response.status, `${method} ${path}`).toBe(404);
      const body = (await response.json()) as { error: { message: string } };
      expect(body.error.message).toBe(`no route ${method} ${path}`);
    }
  });

  it('refuses a streamed (chunked) body over the limit with a 413, and the connection lives on', async () => {
    const seen = gw.mock.requests.last(100).length;
    const huge = chat('x'.repeat(BODY_LIMIT));
    async function* chunked() {
      for (let at = 0; at < huge.length; at += 4096) yield Buffer.from(huge.slice(at, at + 4096));
    }
    const refused = await request(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Readable.from(chunked()),
      dispatcher: oneConnection,
    });
    expect(refused.statusCode).toBe(413);
    expect(await refused.body.json()).toEqual({
      type: 'error',
      error: { type: 'request_too_large', message: 'request body is too large' },
    });
    const next = await request(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: chat(),
      dispatcher: oneConnection,
    });
    expect(next.statusCode).toBe(200);
    await next.body.dump();
    expect(gw.mock.requests.last(100).length).toBe(seen + 1);
  });
});

describe('a stream to an agent that reads slowly', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
    await gw.applyPolicies([]);
  });
  afterAll(() => gw.close());

  it('pauses the provider while the agent’s socket is full, and loses or reorders nothing', async () => {
    const words = Array.from({ length: 20_000 }, (_, i) => `word-${i}-${'x'.repeat(40)}`);
    const text = words.join(' ');
    const response = await request(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'm',
        stream: true,
        messages: [{ role: 'user', content: `mock: ${JSON.stringify({ text })}` }],
      }),
    });
    expect(response.statusCode).toBe(200);
    // Not reading for a while: ~1 MB of events fill the sockets between here and the provider.
    await new Promise((resolve) => setTimeout(resolve, 300));
    let content = '';
    let pending = '';
    for await (const piece of response.body.setEncoding('utf8') as AsyncIterable<string>) {
      pending += piece;
      const events = pending.split('\n\n');
      pending = events.pop() ?? '';
      for (const event of events) {
        if (!event.startsWith('data: {')) continue;
        const delta = (
          JSON.parse(event.slice(6)) as { choices: Array<{ delta: { content?: string } }> }
        ).choices[0]?.delta.content;
        if (delta) content += delta;
      }
    }
    expect(content.length).toBe(text.length);
    expect(content === text).toBe(true);
  });
});

describe('a failure of the gateway itself', () => {
  let gw: TestGateway;
  const broken: ReceiptSink = {
    full: () => false,
    record: () => Promise.reject(new Error('recorder bug: /srv/secret/path at line 12')),
  };
  beforeAll(async () => {
    gw = await startTestGateway({ recorder: broken });
    await gw.applyPolicies([]);
  });
  afterAll(() => gw.close());

  it('is a provider-style 500 that says nothing of the internals', async () => {
    for (const [path, type] of [
      ['/v1/chat/completions', undefined],
      ['/v1/messages', 'error'],
    ] as const) {
      const response = await fetch(gw.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: chat(),
      });
      expect(response.status, path).toBe(500);
      const text = await response.text();
      expect(text).not.toContain('secret');
      const body = JSON.parse(text) as { type?: string; error: { message: string } };
      expect(body.type).toBe(type);
      // The provider answered, but no receipt could be written: the agent gets no answer.
      expect(body.error.message).toBe('gateway could not record this request');
    }
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
  });
});

describe('readBody', () => {
  const LIMIT = 100_000;
  let server: Server;
  let client: Client;
  beforeAll(async () => {
    // Answers with what readBody made of the request: the text's length and its first bytes.
    server = createServer((req, res) => {
      readBody(req, LIMIT).then(
        ({ text, bytes }) => {
          if (!bytes.equals(Buffer.from(text, 'utf8'))) throw new Error('bytes and text differ');
          res.end(JSON.stringify({ length: text.length, start: text.slice(0, 8) }));
        },
        (error: UnreadableBodyError) => {
          res.statusCode = error.status;
          res.end(error.message);
        },
      );
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address() as { port: number };
    // One connection: a request read from the buffer must leave the socket ready for the next.
    client = new Client(`http://127.0.0.1:${address.port}`, { pipelining: 1 });
  });
  afterAll(async () => {
    await client.close();
    server.close();
  });

  const post = async (
    body: string | Buffer | AsyncIterable<Buffer>,
    headers: Record<string, string> = {},
  ) => {
    const response = await client.request({
      method: 'POST',
      path: '/',
      headers,
      body: typeof body === 'string' || Buffer.isBuffer(body) ? body : Readable.from(body),
    });
    return { status: response.statusCode, text: await response.body.text() };
  };

  it('reads bodies that arrive whole, one after the other on one connection', async () => {
    for (let i = 0; i < 30; i++) {
      const body = `{"n":${i},"pad":"${'p'.repeat(i * 1000)}"}`;
      expect(await post(body)).toEqual({
        status: 200,
        text: JSON.stringify({ length: body.length, start: body.slice(0, 8) }),
      });
    }
    expect(await post('')).toEqual({ status: 200, text: '{"length":0,"start":""}' });
    // More than one socket read (64 KiB) sent at once: done only with its last chunk.
    const large = `{"pad":"${'é'.repeat(45_000)}"}`;
    expect(await post(large)).toEqual({
      status: 200,
      text: JSON.stringify({ length: large.length, start: large.slice(0, 8) }),
    });
  });

  it('reads a body that trickles in, and refuses one that passes the limit on the way', async () => {
    async function* trickle(pieces: number, size: number) {
      for (let i = 0; i < pieces; i++) {
        await sleep(5);
        yield Buffer.from('é'.repeat(size / 2));
      }
    }
    expect(await post(trickle(4, 1000))).toEqual({
      status: 200,
      text: JSON.stringify({ length: 2000, start: 'é'.repeat(8) }),
    });
    // Framed by Content-Length instead of chunked: done with its last byte, not its first.
    expect(await post(trickle(4, 1000), { 'content-length': '4000' })).toEqual({
      status: 200,
      text: JSON.stringify({ length: 2000, start: 'é'.repeat(8) }),
    });
    expect(await post(trickle(30, 4000))).toEqual({
      status: 413,
      text: 'request body is too large',
    });
    async function* flood() {
      for (let i = 0; i < 500; i++) yield Buffer.alloc(16_384, 0x61);
    }
    expect(await post(flood())).toEqual({ status: 413, text: 'request body is too large' });
    expect((await post('{"after":"a flood"}')).status).toBe(200);
  });

  it('refuses invalid UTF-8 and a declared length over the limit', async () => {
    expect(await post(Buffer.from([0x7b, 0xff, 0x7d]))).toEqual({
      status: 400,
      text: 'request body is not valid UTF-8 at byte 1',
    });
    expect(await post('x'.repeat(LIMIT + 1))).toEqual({
      status: 413,
      text: 'request body is too large',
    });
    expect(await post('{"still":"served"}')).toEqual({
      status: 200,
      text: '{"length":18,"start":"{\\"still\\""}',
    });
  });
});
