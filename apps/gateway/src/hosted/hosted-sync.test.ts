import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import { type ActiveBundle, BundleStore } from '../bundle/bundle-store.ts';
import { BundleSync } from '../bundle/bundle-sync.ts';
import { createMetrics } from '../metrics.ts';
import { createHttpToolExecutor } from './http-tool-executor.ts';

/**
 * A HostedTool applied to the API reaches a gateway through its bundle sync, and the executor
 * made from the synced bundle calls the endpoint with the secret from the gateway's environment.
 */

const GATEWAY = 'hosted-sync-edge';
const log = pino({ level: 'silent' });
let api: TestApi;
let client: TestApi['operator'];
let dir: string;
let endpoint: Server;
let url: string;
const seen: Array<{ authorization?: string; body: string }> = [];

beforeAll(async () => {
  api = await startTestApi();
  ({ client } = await api.identity(`${GATEWAY}-id`, ['gateway']));
  await api.operator.call('gateways.create', {
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'Gateway',
      metadata: { name: GATEWAY },
      spec: { identity: `${GATEWAY}-id` },
    },
  });
  dir = await mkdtemp(join(tmpdir(), 'toolgate-hosted-sync-'));
  endpoint = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const authorization = request.headers.authorization;
      seen.push({ ...(authorization ? { authorization } : {}), body });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ results: [{ title: 'hit' }], debug: { token: 'internal' } }));
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/search`;
});
afterAll(async () => {
  endpoint?.closeAllConnections();
  await new Promise((resolve) => endpoint?.close(resolve));
  await api?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a HostedTool through bundle sync', () => {
  it('is in the bundle the gateway applies, and its executor calls the endpoint', async () => {
    const store = await BundleStore.open(join(dir, 'bundle'), log);
    const applied: ActiveBundle[] = [];
    const sync = new BundleSync({
      gateway: GATEWAY,
      store,
      client,
      metrics: createMetrics(),
      log,
      waitSeconds: 30,
      version: '0.1.0-test',
      spoolDepth: () => 0,
      onApplied: (active) => applied.push(active),
    });
    sync.start();
    try {
      await expect.poll(() => applied.length, { timeout: 10_000 }).toBeGreaterThan(0);
      expect(applied[0]?.bundle.hostedTools).toBeUndefined();
      await api.operator.call('hostedTools.create', {
        body: {
          apiVersion: 'toolgate.dev/v1',
          kind: 'HostedTool',
          metadata: { name: 'approved-web-search' },
          spec: {
            tool: { name: 'approved_web_search', description: 'Search the web.' },
            endpoint: {
              url,
              headers: [{ name: 'Authorization', secretRef: { env: 'SEARCH_TOKEN' } }],
              timeout: '2s',
            },
            redact: ['debug.token'],
          },
        } as never,
      });
      await expect
        .poll(() => applied.at(-1)?.bundle.hostedTools?.length ?? 0, { timeout: 10_000 })
        .toBe(1);
      const tool = applied.at(-1)?.bundle.hostedTools?.[0];
      expect(tool?.name).toBe('approved-web-search');
      const executor = createHttpToolExecutor(tool as NonNullable<typeof tool>, {
        secrets: { SEARCH_TOKEN: 'Bearer from-the-gateway-env' },
      });
      try {
        const result = await executor.execute({
          id: 'call_9',
          name: 'approved_web_search',
          arguments: { q: 'toolgate' },
          signal: new AbortController().signal,
        });
        expect(result).toMatchObject({
          outcome: 'ok',
          status: 200,
          redactedPaths: ['debug.token'],
        });
        expect(JSON.parse(result.content)).toEqual({
          results: [{ title: 'hit' }],
          debug: { token: '[REDACTED]' },
        });
        expect(seen).toEqual([
          { authorization: 'Bearer from-the-gateway-env', body: '{"q":"toolgate"}' },
        ]);
      } finally {
        await executor.close();
      }
    } finally {
      await sync.stop();
    }
  });
});
