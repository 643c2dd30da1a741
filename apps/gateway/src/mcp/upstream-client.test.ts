import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedFetch } from './upstream-client.ts';

/**
 * The upstream transport's fetch: bounded answers, and no listener left on the session's abort
 * signal per request (the SDK hands every fetch of a session the same signal).
 */

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/hang') return; // never answers: only an abort ends the request
    const size = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('size') ?? 10);
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(`event: message\ndata: ${'x'.repeat(size)}\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('boundedFetch', () => {
  it('leaves no abort listener on the shared signal once each answer is read', async () => {
    const session = new AbortController();
    const fetcher = boundedFetch(1024);
    for (let i = 0; i < 50; i++) {
      const response = await fetcher(`${url}/mcp`, {
        method: 'POST',
        body: '{}',
        signal: session.signal,
      });
      expect(await response.text()).toContain('data: xxxx');
    }
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0);
  });

  it('still aborts a request in flight when the shared signal aborts', async () => {
    const session = new AbortController();
    const pending = boundedFetch(1024)(`${url}/hang`, {
      method: 'POST',
      body: '{}',
      signal: session.signal,
    });
    setTimeout(() => session.abort(), 50);
    await expect(pending).rejects.toThrow(/abort/i);
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0);
  });

  it('errors an answer past the limit, and lets go of the signal', async () => {
    const session = new AbortController();
    const response = await boundedFetch(1024)(`${url}/mcp?size=100000`, {
      method: 'POST',
      body: '{}',
      signal: session.signal,
    });
    await expect(response.text()).rejects.toThrow(/exceeds 1024 bytes/);
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0);
  });
});
