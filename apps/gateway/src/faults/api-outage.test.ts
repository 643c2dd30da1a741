import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '@toolgate/core/testing';
import { createMockProvider, type MockProvider } from '@toolgate/mock-provider';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectFault, recordFigures } from '../../../../scripts/reliability/figures.ts';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import { type OutageProxy, startOutageProxy } from '../shipping/testing/outage-proxy.ts';
import {
  gatewayStatus,
  hideRule,
  openAITools,
  policyObject,
  providerToolNames,
  registerGateway,
  storedReceiptIds,
  untilSynced,
  verifyChain,
} from './control-plane.ts';
import { readMetric } from './metrics.ts';
import { type GatewayProcess, killAllGateways, restartGateway, startGateway } from './processes.ts';

/**
 * SPEC §4 under an API outage: the gateway keeps enforcing the last good policy (also across a
 * restart with the API still down, from the persisted bundle), keeps answering and spooling
 * receipts, and once the API is back every receipt arrives exactly once with the chain intact.
 */

const GATEWAY = 'edge-outage';
const LABELS = { env: 'outage' };
const HIDDEN = 'delete_repo';
const TOOLS = openAITools(['search_code', HIDDEN, 'read_file']);

let api: TestApi;
let proxy: OutageProxy;
let mock: MockProvider;
let dataDir: string;
let token: string;
let gateway: GatewayProcess;

beforeAll(async () => {
  [api, mock] = await Promise.all([startTestApi(), createMockProvider()]);
  proxy = await startOutageProxy(api.url);
  token = await registerGateway(api, GATEWAY, LABELS);
  await api.operator.call('mediationPolicies.create', {
    body: policyObject('no-deletes', LABELS, [hideRule('hide-deletes', HIDDEN)]),
  });
  dataDir = await mkdtemp(join(tmpdir(), 'toolgate-fault-outage-'));
  gateway = await startGateway({
    name: GATEWAY,
    apiUrl: proxy.url,
    apiToken: token,
    upstreamUrl: mock.url,
    dataDir,
  });
});

afterAll(async () => {
  await killAllGateways();
  await proxy?.close();
  await Promise.all([api?.close(), mock?.close()]);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Sends `count` requests (8 at a time) with the SDK; returns the receipt ids, in order. */
async function sendRequests(count: number, tag: string): Promise<string[]> {
  const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const ids: string[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const { data, response } = await openai.chat.completions
        .create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: `${tag} request ${index}` }],
          tools: TOOLS,
        })
        .withResponse();
      expect(response.status).toBe(200);
      // The mock's default answer names the tools it saw: the hidden one is not among them.
      expect(data.choices[0]?.message.content).toBe('mock: 2 tools: search_code, read_file');
      const id = response.headers.get('x-toolgate-receipt-id');
      expect(id).toMatch(/^rcpt_/);
      ids[index] = id as string;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return ids;
}

/** What the provider saw for the requests tagged `tag`: the tool names of each. */
function providerSaw(tag: string): string[][] {
  return mock.requests
    .last()
    .filter((r) => JSON.stringify(r.body).includes(`${tag} request `))
    .map((r) => providerToolNames(r.body));
}

const spoolDepth = () => readMetric(gateway.url, 'toolgate_gateway_spool_depth');

const SOURCE = 'apps/gateway/src/faults/api-outage.test.ts';

describe('API outage', () => {
  it('keeps enforcing and spooling while the API is down, across a restart; ships exactly once after', async () => {
    await untilSynced(api, GATEWAY, 10_000);
    // Warm-up with the API up: shipped at once, so the chain at the API is not empty.
    const clientIds = await sendRequests(5, 'warmup');
    await until(async () => (await spoolDepth()) === 0, 10_000, 'warm-up receipts shipped');
    expect((await storedReceiptIds(api, GATEWAY)).length).toBe(5);

    const etag = (await gatewayStatus(api, GATEWAY)).appliedBundleETag;
    expect(etag).toMatch(/^sha256:/);
    const fault = injectFault(SOURCE, 'API down under gateway load, gateway restarted meanwhile');
    await proxy.down();
    const outage = Date.now();

    // 1. N requests with the API down: all answered, X hidden, the spool grows.
    const during = await sendRequests(60, 'down');
    clientIds.push(...during);
    expect(providerSaw('down')).toHaveLength(60);
    for (const tools of providerSaw('down')) expect(tools).toEqual(['search_code', 'read_file']);
    expect(await spoolDepth()).toBe(60);
    expect(
      await readMetric(gateway.url, 'toolgate_gateway_sync_failures_total', {
        reason: 'unreachable',
      }),
    ).toBeGreaterThan(0);

    // 2. Restart with the API still down: ready from the persisted bundle, still enforcing.
    await gateway.kill('SIGTERM');
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    gateway = await restartGateway(gateway);
    const ready = await fetch(`${gateway.url}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ok', bundle: etag }); // from disk
    expect(await spoolDepth()).toBe(60); // the spool survived the restart, nothing shipped
    const afterRestart = await sendRequests(20, 'restarted');
    clientIds.push(...afterRestart);
    expect(providerSaw('restarted')).toHaveLength(20);
    for (const tools of providerSaw('restarted')) {
      expect(tools).toEqual(['search_code', 'read_file']);
    }
    expect(await spoolDepth()).toBe(80);
    expect((await storedReceiptIds(api, GATEWAY)).length).toBe(5); // nothing got through
    const downFor = Date.now() - outage;

    // 3. The API is back: every receipt arrives, exactly once, chain intact.
    await proxy.up();
    const back = Date.now();
    await until(async () => (await spoolDepth()) === 0, 10_000, 'spool drained');
    const drainMs = Date.now() - back;
    const stored = await storedReceiptIds(api, GATEWAY);
    expect(new Set(clientIds).size).toBe(85);
    expect(stored.length).toBe(85);
    expect(new Set(stored).size).toBe(stored.length); // none twice
    expect([...stored].sort()).toEqual([...clientIds].sort()); // none missing, none extra
    expect(await verifyChain(api, GATEWAY)).toMatchObject({ valid: true, checked: 85 });
    // The sync loop reconnects too.
    await untilSynced(api, GATEWAY, 15_000, 'Synced=True after the outage');
    fault.survived();
    recordFigures({ source: SOURCE, receipts: { sent: clientIds.length, stored: stored.length } });
    console.info(
      `API down ${downFor} ms; 80 spooled receipts shipped ${drainMs} ms after it came back`,
    );
  }, 60_000);
});
