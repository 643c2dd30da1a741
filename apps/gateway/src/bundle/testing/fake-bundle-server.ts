import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';

/** A bundle source that serves whatever a test tells it to — including what the API never would. */
export interface FakeBundleServer {
  url: string;
  /** Every bundle request, with the ETag the gateway said it holds. */
  requests: Array<{ ifNoneMatch: string | undefined; at: number }>;
  /** Serves `body` (raw text) under `etag` (no ETag header when undefined) from now on. */
  serve(body: string, etag: string | undefined): void;
  close(): Promise<void>;
}

/**
 * Answers `GET …/bundle` like the API's long-poll: `200` with the body when the gateway's
 * `If-None-Match` differs from the served ETag; otherwise holds the request until `serve()`
 * changes it or `wait` runs out (then `304`).
 */
export async function startFakeBundleServer(): Promise<FakeBundleServer> {
  let current: { body: string; etag: string | undefined } = { body: '{}', etag: undefined };
  const held = new Set<{ response: ServerResponse; timer: NodeJS.Timeout }>();
  const requests: FakeBundleServer['requests'] = [];

  const answer = (response: ServerResponse) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (current.etag !== undefined) headers.etag = `"${current.etag}"`;
    response.writeHead(200, headers).end(current.body);
  };

  const server = createServer((request, response) => {
    const header = request.headers['if-none-match'];
    const ifNoneMatch = header?.replace(/^"|"$/g, '');
    requests.push({ ifNoneMatch, at: Date.now() });
    if (ifNoneMatch === undefined || ifNoneMatch !== current.etag) return answer(response);
    const wait = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('wait') ?? 0);
    const entry = {
      response,
      timer: setTimeout(() => {
        held.delete(entry);
        response.writeHead(304).end();
      }, wait * 1000),
    };
    held.add(entry);
    response.on('close', () => {
      clearTimeout(entry.timer);
      held.delete(entry);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    serve(body, etag) {
      current = { body, etag };
      for (const entry of held) {
        clearTimeout(entry.timer);
        answer(entry.response);
      }
      held.clear();
    },
    async close() {
      for (const entry of held) entry.response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
