import { createServer, type Server } from 'node:http';
import { createClient } from '@toolgate/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFetch } from './api-fetch.ts';

describe('apiFetch (the API client over undici.request)', () => {
  let server: Server;
  let base: string;
  const fetch = apiFetch();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.url === '/not-modified') {
          res.writeHead(304, { etag: '"e1"' }).end();
        } else if (req.url === '/hang') {
          // Never answers: the caller's signal has to end it.
        } else {
          const status = req.url === '/fail' ? 503 : 200;
          res.writeHead(status, {
            'content-type': 'application/json',
            'set-cookie': ['a=1', 'b=2'],
          });
          res.end(
            JSON.stringify({
              method: req.method,
              auth: req.headers.authorization ?? null,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('sends the method, headers and byte body; answers a standard Response', async () => {
    const body = new TextEncoder().encode('{"receipts":["ü"]}');
    const response = await fetch(new URL(`${base}/x`), {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(200);
    expect(response.ok).toBe(true);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({
      method: 'POST',
      auth: 'Bearer t',
      body: '{"receipts":["ü"]}',
    });
  });

  it('answers 304 without a body and error statuses with theirs', async () => {
    const notModified = await fetch(`${base}/not-modified`);
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe('"e1"');
    expect(notModified.body).toBeNull();
    const failed = await fetch(`${base}/fail`, { method: 'GET' });
    expect(failed.ok).toBe(false);
    expect(failed.status).toBe(503);
  });

  it('is aborted by the signal', async () => {
    await expect(fetch(`${base}/hang`, { signal: AbortSignal.timeout(50) })).rejects.toThrow();
  });

  it('serves as the contract client’s fetch', async () => {
    const client = createClient({ baseUrl: base, token: 'secret', fetch });
    const response = await client.raw('sync.bundle', { params: { name: 'g' }, query: { wait: 0 } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { auth: string }).auth).toBe('Bearer secret');
  });
});
