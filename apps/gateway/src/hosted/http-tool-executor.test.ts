import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BundleHostedTool, HostedToolSpecInput, JsonValue } from '@toolgate/core';
import { HostedToolSpec } from '@toolgate/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostedCall } from './hosted-executor.ts';
import { createHttpToolExecutor, type HttpToolExecutor } from './http-tool-executor.ts';

/**
 * The HTTP executor against real HTTP servers the test starts: every outcome the tool loop and the
 * receipt rely on, and the secret of a header never in what the model is told.
 */

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

interface Endpoint {
  url: string;
  hits: number;
  /** Requests whose connection closed before the server ended its answer. */
  closedEarly: number;
  seen: { headers: IncomingMessage['headers']; body: string }[];
}

const servers: Server[] = [];
const executors: HttpToolExecutor[] = [];

afterEach(async () => {
  await Promise.all(executors.splice(0).map((executor) => executor.close()));
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(resolve);
        }),
    ),
  );
});

async function serve(handler: Handler): Promise<Endpoint> {
  const endpoint: Endpoint = { url: '', hits: 0, closedEarly: 0, seen: [] };
  const server = createServer((request, response) => {
    endpoint.hits++;
    response.on('close', () => {
      if (!response.writableFinished) endpoint.closedEarly++;
    });
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      endpoint.seen.push({ headers: request.headers, body });
      handler(request, body, response);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/search?v=2`;
  return endpoint;
}

const json = (response: ServerResponse, status: number, value: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
};

function hostedTool(
  url: string,
  endpoint: Partial<HostedToolSpecInput['endpoint']> = {},
  extra: Partial<HostedToolSpecInput> = {},
): BundleHostedTool {
  return {
    name: 'approved-web-search',
    spec: HostedToolSpec.parse({
      tool: {
        name: 'approved_web_search',
        description: 'Search the web.',
        parameters: { type: 'object', properties: { q: { type: 'string' } } },
      },
      endpoint: {
        url,
        headers: [
          { name: 'Authorization', secretRef: { env: 'SEARCH_TOKEN' } },
          { name: 'X-Team', value: 'search' },
        ],
        ...endpoint,
      },
      ...extra,
    }),
  };
}

const SECRET = 'Bearer s3cr3t-value-0123456789';

function executor(tool: BundleHostedTool, secrets: Record<string, string | undefined> = {}) {
  const created = createHttpToolExecutor(tool, { secrets: { SEARCH_TOKEN: SECRET, ...secrets } });
  executors.push(created);
  return created;
}

function call(args: JsonValue = { q: 'toolgate' }, extra: Partial<HostedCall> = {}): HostedCall {
  return {
    id: 'call_1',
    name: 'approved_web_search',
    arguments: args,
    signal: new AbortController().signal,
    ...extra,
  };
}

describe('createHttpToolExecutor', () => {
  it('POSTs the arguments as JSON with the headers and hands back the JSON answer', async () => {
    const endpoint = await serve((_request, body, response) =>
      json(response, 200, { results: [{ title: 'Toolgate' }], echo: JSON.parse(body) }),
    );
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const result = await executor(hostedTool(endpoint.url)).execute(
      call({ q: 'toolgate' }, { traceparent }),
    );
    expect(result).toMatchObject({ outcome: 'ok', isError: false, status: 200 });
    expect(JSON.parse(result.content)).toEqual({
      results: [{ title: 'Toolgate' }],
      echo: { q: 'toolgate' },
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(result.redactedPaths).toBeUndefined();
    const [seen] = endpoint.seen;
    expect(seen?.headers).toMatchObject({
      authorization: SECRET,
      'x-team': 'search',
      'content-type': 'application/json',
      'x-toolgate-call-id': 'call_1',
      traceparent,
    });
    expect(seen?.body).toBe('{"q":"toolgate"}');
  });

  it('keeps the connection alive between calls', async () => {
    const endpoint = await serve((_request, _body, response) => json(response, 200, { ok: true }));
    const sockets = new Set<unknown>();
    servers[0]?.on('connection', (socket) => sockets.add(socket));
    const tool = executor(hostedTool(endpoint.url));
    for (let i = 0; i < 5; i++) {
      expect((await tool.execute(call())).outcome).toBe('ok');
      // undici frees the connection just after the body's end: the next call may then reuse it.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(sockets.size).toBe(1);
  });

  it('redacts dotted paths, array indices and wildcards, and lists what it replaced', async () => {
    const endpoint = await serve((_request, _body, response) =>
      json(response, 200, {
        debug: { token: 'abc', trace: 't' },
        items: [
          { url: 'a', secret: 1 },
          { url: 'b', secret: 2 },
        ],
        first: [{ key: 'k' }],
      }),
    );
    const result = await executor(
      hostedTool(
        endpoint.url,
        {},
        { redact: ['debug.token', 'items.*.secret', 'first[0].key', 'nothing.here'] },
      ),
    ).execute(call());
    expect(result.outcome).toBe('ok');
    expect(JSON.parse(result.content)).toEqual({
      debug: { token: '[REDACTED]', trace: 't' },
      items: [
        { url: 'a', secret: '[REDACTED]' },
        { url: 'b', secret: '[REDACTED]' },
      ],
      first: [{ key: '[REDACTED]' }],
    });
    expect(result.redactedPaths).toEqual([
      'debug.token',
      'items.0.secret',
      'items.1.secret',
      'first.0.key',
    ]);
  });

  it('times out a slow endpoint per attempt and closes the exchange', async () => {
    const endpoint = await serve(() => {}); // never answers
    const started = Date.now();
    const result = await executor(hostedTool(endpoint.url, { timeout: '200ms' })).execute(call());
    expect(result).toMatchObject({ outcome: 'timeout', isError: true });
    expect(result.status).toBeUndefined();
    expect(result.content).toContain('did not answer within');
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect.poll(() => endpoint.closedEarly).toBe(1);
  });

  it('does not retry a timeout (the endpoint may still be running the call)', async () => {
    const endpoint = await serve(() => {});
    const result = await executor(
      hostedTool(endpoint.url, { timeout: '100ms', retries: 2 }),
    ).execute(call());
    expect(result.outcome).toBe('timeout');
    expect(endpoint.hits).toBe(1);
  });

  it('reports an endpoint that is down as unavailable, and retries it when configured', async () => {
    const endpoint = await serve(() => {});
    const down = endpoint.url;
    await new Promise((resolve) => servers.pop()?.close(resolve));
    const result = await executor(hostedTool(down)).execute(call());
    expect(result).toMatchObject({ outcome: 'unavailable', isError: true });
    expect(result.content).toContain('ECONNREFUSED');
    const retried = await executor(hostedTool(down, { retries: 2 })).execute(call());
    expect(retried.outcome).toBe('unavailable');
    // Two waits of 100 ms and 200 ms between the three attempts.
    expect(retried.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('calls an answer that is not JSON or not UTF-8 a bad response', async () => {
    const endpoint = await serve((request, _body, response) => {
      const kind = new URL(request.url ?? '/', 'http://x').searchParams.get('kind');
      if (kind === 'garbage') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"results": [unterminated');
      } else if (kind === 'latin1') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(Buffer.from([0x22, 0xe9, 0x22]));
      } else if (kind === 'html') {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<html>hi</html>');
      } else {
        response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('plain words');
      }
    });
    const base = endpoint.url.replace('?v=2', '');
    const run = (kind: string, extra: Partial<HostedToolSpecInput> = {}) =>
      executor(hostedTool(`${base}?kind=${kind}`, {}, extra)).execute(call());
    for (const kind of ['garbage', 'latin1', 'html']) {
      const result = await run(kind);
      expect(result, kind).toMatchObject({ outcome: 'bad_response', isError: true, status: 200 });
    }
    expect((await run('garbage')).content).toContain('not JSON');
    expect((await run('latin1')).content).toContain('UTF-8');
    // Text is the tool's result as it is, unless the tool redacts paths (of a JSON answer).
    expect(await run('text')).toMatchObject({ outcome: 'ok', content: 'plain words' });
    expect(await run('text', { redact: ['a.b'] })).toMatchObject({ outcome: 'bad_response' });
  });

  it('cuts off an answer larger than maxResponseBytes and destroys its connection', async () => {
    const endpoint = await serve((_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      // Streams without a declared length, far past the limit, until the gateway hangs up.
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const pump = () => {
        while (!response.destroyed && response.write(chunk)) {}
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    });
    const result = await executor(
      hostedTool(endpoint.url, { maxResponseBytes: 64 * 1024 }),
    ).execute(call());
    expect(result).toMatchObject({ outcome: 'too_large', isError: true, status: 200 });
    await expect.poll(() => endpoint.closedEarly).toBe(1);
  });

  it('refuses a declared length over the limit without reading it', async () => {
    const endpoint = await serve((_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': 1_000_000 });
      response.write('{');
    });
    const result = await executor(hostedTool(endpoint.url, { maxResponseBytes: 1024 })).execute(
      call(),
    );
    expect(result.outcome).toBe('too_large');
    expect(result.content).toContain('1000000 bytes');
  });

  it('reports a 5xx as an error with its status, retried only when configured', async () => {
    let failures = 0;
    const endpoint = await serve((_request, _body, response) => {
      if (failures > 0) {
        failures--;
        json(response, 503, { error: 'busy' });
      } else json(response, 200, { ok: true });
    });
    failures = 1;
    const once = await executor(hostedTool(endpoint.url)).execute(call());
    expect(once).toMatchObject({ outcome: 'error', isError: true, status: 503 });
    expect(once.content).toContain('HTTP 503');
    expect(once.content).toContain('busy');
    expect(endpoint.hits).toBe(1);

    failures = 2;
    const retried = await executor(hostedTool(endpoint.url, { retries: 2 })).execute(call());
    expect(retried).toMatchObject({ outcome: 'ok', status: 200 });
    expect(endpoint.hits).toBe(4);

    failures = 5;
    const exhausted = await executor(hostedTool(endpoint.url, { retries: 1 })).execute(call());
    expect(exhausted).toMatchObject({ outcome: 'error', status: 503 });
    expect(endpoint.hits).toBe(6);
  });

  it('does not retry a 4xx', async () => {
    const endpoint = await serve((_request, _body, response) =>
      json(response, 400, { error: 'q?' }),
    );
    const result = await executor(hostedTool(endpoint.url, { retries: 3 })).execute(call());
    expect(result).toMatchObject({ outcome: 'error', status: 400 });
    expect(endpoint.hits).toBe(1);
  });

  it('refuses a call whose secret is not in the environment, naming the variable only', async () => {
    const endpoint = await serve((_request, _body, response) => json(response, 200, {}));
    const result = await executor(hostedTool(endpoint.url), { SEARCH_TOKEN: undefined }).execute(
      call(),
    );
    expect(result).toMatchObject({ outcome: 'refused', isError: true });
    expect(result.content).toContain('SEARCH_TOKEN');
    expect(result.content).toContain('Authorization');
    expect(endpoint.hits).toBe(0);
  });

  it('sends the secret as a header but never shows it, even when the endpoint echoes it', async () => {
    const endpoint = await serve((request, _body, response) => {
      const status = request.url?.includes('fail') ? 500 : 200;
      json(response, status, { youSent: request.headers.authorization, nested: [request.headers] });
    });
    const base = endpoint.url.replace('?v=2', '');
    const ok = await executor(hostedTool(base)).execute(call());
    const failed = await executor(hostedTool(`${base}?fail=1`)).execute(call());
    expect(endpoint.seen.map((seen) => seen.headers.authorization)).toEqual([SECRET, SECRET]);
    expect(ok.outcome).toBe('ok');
    expect(failed.outcome).toBe('error');
    for (const result of [ok, failed]) {
      expect(result.content).not.toContain('s3cr3t');
      expect(JSON.stringify(result)).not.toContain('s3cr3t');
      expect(result.content).toContain('[REDACTED]');
    }
  });

  it('stops at once when the call is aborted', async () => {
    const endpoint = await serve(() => {});
    const controller = new AbortController();
    const pending = executor(hostedTool(endpoint.url, { timeout: '60s' })).execute(
      call({ q: 'x' }, { signal: controller.signal }),
    );
    await expect.poll(() => endpoint.hits).toBe(1);
    controller.abort(new Error(`agent left with ${SECRET}`));
    const result = await pending;
    expect(result).toMatchObject({ outcome: 'timeout', isError: true });
    expect(result.content).toContain('cancelled');
    expect(result.content).not.toContain('s3cr3t');
    await expect.poll(() => endpoint.closedEarly).toBe(1);
  });

  it('does not call for an already aborted call nor wait out a retry delay after an abort', async () => {
    const endpoint = await serve((_request, _body, response) => json(response, 503, {}));
    const aborted = AbortSignal.abort();
    const result = await executor(hostedTool(endpoint.url, { retries: 3 })).execute(
      call({}, { signal: aborted }),
    );
    expect(result.outcome).toBe('timeout');
    expect(endpoint.hits).toBe(0);
  });

  it('refuses arguments that are not a JSON object or too large, without calling', async () => {
    const endpoint = await serve((_request, _body, response) => json(response, 200, {}));
    const tool = executor(hostedTool(endpoint.url));
    for (const args of ['text', [1, 2], null, 3]) {
      const result = await tool.execute(call(args as JsonValue));
      expect(result, JSON.stringify(args)).toMatchObject({ outcome: 'refused', isError: true });
      expect(result.content).toContain('JSON object');
    }
    const big = await tool.execute(call({ q: 'x'.repeat(70 * 1024) }));
    expect(big.outcome).toBe('refused');
    expect(big.content).toContain('longer than');
    expect(endpoint.hits).toBe(0);
  });

  it('refuses link-local and metadata endpoints', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[fe80::1]/x']) {
      const result = await executor(hostedTool(url)).execute(call());
      expect(result, url).toMatchObject({ outcome: 'refused' });
      expect(result.content).toContain('link-local');
    }
  });

  it('bounds the content handed to the model', async () => {
    const endpoint = await serve((_request, _body, response) =>
      json(response, 200, { text: 'y'.repeat(10_000) }),
    );
    const tool = createHttpToolExecutor(hostedTool(endpoint.url), {
      secrets: { SEARCH_TOKEN: SECRET },
      maxContentChars: 1000,
    });
    executors.push(tool);
    const result = await tool.execute(call());
    expect(result.outcome).toBe('ok');
    expect(result.content.length).toBeLessThanOrEqual(1000);
    expect(result.content).toMatch(/…\[cut: \d+ more characters\]$/);
  });
});
