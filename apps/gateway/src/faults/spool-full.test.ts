import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { statusOf } from '@toolgate/contract';
import { SPOOL_FULL_CONDITION } from '@toolgate/core';
import { until } from '@toolgate/core/testing';
import { createMockProvider, type MockProvider } from '@toolgate/mock-provider';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectFault, recordFigures } from '../../../../scripts/reliability/figures.ts';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import {
  gatewayStatus,
  hideRule,
  openAITools,
  policyObject,
  registerGateway,
  storedReceiptIds,
  untilSynced,
  verifyChain,
} from './control-plane.ts';
import { type FaultProxy, startFaultProxy } from './fault-proxy.ts';
import { readMetric } from './metrics.ts';
import { type GatewayProcess, killAllGateways, startGateway } from './processes.ts';

/**
 * SPEC §4 "the spool is bounded, and what happens when it is full is a setting": with the API
 * refusing receipts (503) while sync and status still work, a gateway process fills its small
 * spool. `SPOOL_FULL=reject` (the default) answers agents 503 and loses nothing;
 * `SPOOL_FULL=drop` answers them and counts what it could not keep. Either way the state shows
 * in `/metrics` and in `Gateway.status` (`SpoolFull` condition, `spoolDepth`, `spoolDropped`),
 * and clears once the API takes receipts again and the spool drains.
 */

const SOURCE = 'apps/gateway/src/faults/spool-full.test.ts';
const LABELS = { env: 'spoolfull' };
/** A few receipts' worth: the spool fills after a handful of requests. */
const SPOOL_MAX_BYTES = 12 * 1024;
const TOOLS = openAITools(['search_code', 'delete_repo', 'read_file']);

let api: TestApi;
let proxy: FaultProxy;
let mock: MockProvider;
const dirs: string[] = [];
let receiptsBlocked = false;

beforeAll(async () => {
  [api, mock] = await Promise.all([startTestApi(), createMockProvider()]);
  proxy = await startFaultProxy(api.url);
  // Sync, status and schema uploads pass; receipt batches get a 503 while blocked.
  proxy.fault = ({ method, url }) =>
    receiptsBlocked && method === 'POST' && /\/receipts(\?|$)/.test(url)
      ? {
          respond: {
            status: 503,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(statusOf('ServiceUnavailable', 'ingest paused by the test')),
          },
        }
      : undefined;
  await api.operator.call('mediationPolicies.create', {
    body: policyObject('no-deletes', LABELS, [hideRule('hide-deletes', 'delete_repo')]),
  });
});

afterAll(async () => {
  await killAllGateways();
  await proxy?.close();
  await Promise.all([api?.close(), mock?.close()]);
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function gatewayWith(
  name: string,
  policy: 'reject' | 'drop',
  env: Record<string, string> = {},
): Promise<GatewayProcess> {
  const token = await registerGateway(api, name, LABELS);
  const dataDir = await mkdtemp(join(tmpdir(), `toolgate-fault-${name}-`));
  dirs.push(dataDir);
  const gateway = await startGateway({
    name,
    apiUrl: proxy.url,
    apiToken: token,
    upstreamUrl: mock.url,
    dataDir,
    env: { SPOOL_MAX_BYTES: String(SPOOL_MAX_BYTES), SPOOL_FULL: policy, ...env },
  });
  await untilSynced(api, name, 15_000, `${name} Synced=True`);
  return gateway;
}

/** One chat completion; the status, and the receipt id when there is one. */
async function ask(gateway: GatewayProcess, text: string) {
  const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  try {
    const { response } = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }], tools: TOOLS })
      .withResponse();
    return { status: response.status, id: response.headers.get('x-toolgate-receipt-id') };
  } catch (error) {
    if (error instanceof OpenAI.APIError) {
      return { status: error.status ?? 0, id: null, message: error.message };
    }
    throw error;
  }
}

const spoolCondition = async (name: string) =>
  (await gatewayStatus(api, name)).conditions?.find((c) => c.type === SPOOL_FULL_CONDITION);

async function drained(gateway: GatewayProcess, name: string) {
  await until(
    async () => (await readMetric(gateway.url, 'toolgate_gateway_spool_depth')) === 0,
    30_000,
    `${name}: spool drained`,
  );
  await until(
    async () => (await spoolCondition(name))?.status === 'False',
    15_000,
    `${name}: SpoolFull=False`,
  );
  expect(await spoolCondition(name)).toMatchObject({ status: 'False', reason: 'SpoolHasRoom' });
  expect(await readMetric(gateway.url, 'toolgate_gateway_spool_full')).toBe(0);
}

describe('a full spool', () => {
  it('SPOOL_FULL=reject: agents get 503, nothing is lost, metrics and Gateway.status say so', async () => {
    const name = 'edge-spoolfull-reject';
    const gateway = await gatewayWith(name, 'reject');
    const fault = injectFault(SOURCE, 'receipt spool full (reject)');
    receiptsBlocked = true;
    const answered: string[] = [];
    let refused: { status: number; message?: string } | undefined;
    for (let i = 0; i < 100 && !refused; i++) {
      const answer = await ask(gateway, `reject ${i}`);
      if (answer.status === 200) answered.push(answer.id as string);
      else refused = answer;
    }
    expect(refused?.status).toBe(503);
    expect(refused?.message).toContain('spool is full');
    expect(answered.length).toBeGreaterThan(0);
    // Full: every answered request's receipt is in the spool, and it says so everywhere.
    expect(await readMetric(gateway.url, 'toolgate_gateway_spool_depth')).toBe(answered.length);
    expect(await readMetric(gateway.url, 'toolgate_gateway_spool_full')).toBe(1);
    expect(
      await readMetric(gateway.url, 'toolgate_gateway_spool_rejected_requests_total'),
    ).toBeGreaterThan(0);
    await until(
      async () => (await spoolCondition(name))?.status === 'True',
      15_000,
      'SpoolFull=True in Gateway.status',
    );
    const status = await gatewayStatus(api, name);
    expect(status.conditions?.find((c) => c.type === SPOOL_FULL_CONDITION)).toMatchObject({
      status: 'True',
      reason: 'SpoolAtCapacity',
      message: expect.stringContaining('refused with 503'),
    });
    expect(status.spoolDepth).toBe(answered.length);
    expect(status.spoolDropped).toBe(0);
    expect(status.conditions?.find((c) => c.type === 'Synced')?.status).toBe('True');

    // The API takes receipts again: everything answered arrives, once, and requests work.
    receiptsBlocked = false;
    await drained(gateway, name);
    const stored = await storedReceiptIds(api, name);
    expect([...stored].sort()).toEqual([...answered].sort());
    expect(await verifyChain(api, name)).toMatchObject({ valid: true, checked: answered.length });
    expect((await ask(gateway, 'after')).status).toBe(200);
    fault.survived();
    recordFigures({ source: SOURCE, receipts: { sent: answered.length, stored: stored.length } });
  }, 90_000);

  it('SPOOL_FULL=drop: agents are answered, drops are counted in metrics and Gateway.status', async () => {
    const name = 'edge-spoolfull-drop';
    const gateway = await gatewayWith(name, 'drop');
    const fault = injectFault(SOURCE, 'receipt spool full (drop)');
    receiptsBlocked = true;
    const answered: string[] = [];
    for (let i = 0; i < 100; i++) {
      const answer = await ask(gateway, `drop ${i}`);
      expect(answer.status).toBe(200);
      answered.push(answer.id as string);
      if ((await readMetric(gateway.url, 'toolgate_gateway_spool_dropped')) >= 3) break;
    }
    const dropped = await readMetric(gateway.url, 'toolgate_gateway_spool_dropped');
    expect(dropped).toBe(3);
    const kept = await readMetric(gateway.url, 'toolgate_gateway_spool_depth');
    expect(kept + dropped).toBe(answered.length);
    expect(await readMetric(gateway.url, 'toolgate_gateway_spool_full')).toBe(1);
    await until(
      async () => (await gatewayStatus(api, name)).spoolDropped === dropped,
      15_000,
      'spoolDropped in Gateway.status',
    );
    expect(await spoolCondition(name)).toMatchObject({
      status: 'True',
      reason: 'SpoolAtCapacity',
      message: expect.stringContaining('dropped'),
    });

    receiptsBlocked = false;
    await drained(gateway, name);
    const stored = await storedReceiptIds(api, name);
    expect(stored.length).toBe(kept);
    for (const id of stored) expect(answered).toContain(id);
    // Dropped receipts never entered the chain, so what was kept still verifies.
    expect(await verifyChain(api, name)).toMatchObject({ valid: true, checked: kept });
    fault.survived();
  }, 90_000);

  it('a disk below SPOOL_MIN_FREE_BYTES counts as full: 503, metrics and Gateway.status name the disk', async () => {
    const name = 'edge-spoolfull-disk';
    // More free space kept than any disk here has: the real statfs says the disk is "full".
    const gateway = await gatewayWith(name, 'reject', {
      SPOOL_MAX_BYTES: String(64 * 1024 * 1024),
      SPOOL_MIN_FREE_BYTES: String(2 ** 52),
    });
    const fault = injectFault(SOURCE, 'spool disk full');
    mock.requests.clear();
    const answer = await ask(gateway, 'disk');
    expect(answer.status).toBe(503);
    expect(answer.message).toContain('spool is full');
    expect(mock.requests.last(1)).toHaveLength(0); // refused before the provider was called
    expect(await readMetric(gateway.url, 'toolgate_gateway_spool_full')).toBe(1);
    await until(
      async () => (await spoolCondition(name))?.status === 'True',
      15_000,
      'SpoolFull=True in Gateway.status',
    );
    expect(await spoolCondition(name)).toMatchObject({
      reason: 'SpoolAtCapacity',
      message: expect.stringContaining("the spool's disk has less than"),
    });
    fault.survived();
  }, 60_000);
});
