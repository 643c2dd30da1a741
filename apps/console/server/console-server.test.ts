// @vitest-environment node
import { createServer, type Server } from 'node:http';
import { CONSOLE_CONTENT_SECURITY_POLICY } from '@toolgate/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleServer, startConsoleServer } from './console-server.ts';
import { ConsoleEnv } from './env.ts';

let api: Server;
let apiUrl: string;
let server: ConsoleServer;

beforeAll(async () => {
  // A stand-in upstream that echoes what reached it, to see what the proxy forwards.
  api = createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(
      JSON.stringify({ path: request.url, authorization: request.headers.authorization ?? null }),
    );
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const address = api.address();
  apiUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  server = await startConsoleServer({ apiUrl, port: 0 });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => api?.close(resolve));
});

describe('startConsoleServer', () => {
  it('serves the app on every client-side route (shareable URLs)', async () => {
    for (const path of [
      '/',
      '/receipts?tool=read_file',
      '/policies/guardrails?tab=diff&from=1&to=2',
    ]) {
      const response = await fetch(server.url + path);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('<div id="root"></div>');
    }
  });

  it('sends the security headers on the app and its assets', async () => {
    const page = await fetch(`${server.url}/receipts`);
    const html = await page.text();
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    for (const response of [page, await fetch(server.url + asset)]) {
      expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('proxies the API paths to the API, headers included', async () => {
    const response = await fetch(`${server.url}/apis/toolgate.dev/v1/receipts?limit=5`, {
      headers: { authorization: 'Bearer x' },
    });
    expect(await response.json()).toEqual({
      path: '/apis/toolgate.dev/v1/receipts?limit=5',
      authorization: 'Bearer x',
    });
    expect(await (await fetch(`${server.url}/healthz`)).json()).toMatchObject({ path: '/healthz' });
  });
});

describe('ConsoleEnv', () => {
  it('has defaults and names a bad field', () => {
    expect(ConsoleEnv.parse({})).toEqual({
      CONSOLE_HOST: '127.0.0.1',
      CONSOLE_PORT: 5173,
      API_URL: 'http://127.0.0.1:8080',
    });
    const result = ConsoleEnv.safeParse({ CONSOLE_PORT: '70000', API_URL: 'not a url' });
    expect(result.error?.issues.map((i) => i.path.join('.')).sort()).toEqual([
      'API_URL',
      'CONSOLE_PORT',
    ]);
  });
});
