import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '@toolgate/core/testing';
import { createPrismaClient, type PrismaClient } from '@toolgate/db';
import { createMockProvider, type MockProvider } from '@toolgate/mock-provider';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectFault } from '../../../../scripts/reliability/figures.ts';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import {
  gatewayStatus,
  hideRule,
  openAITools,
  policyObject,
  providerToolNames,
  registerGateway,
  syncedCondition,
  untilSynced,
} from './control-plane.ts';
import { readMetric } from './metrics.ts';
import { type GatewayProcess, killAllGateways, restartGateway, startGateway } from './processes.ts';

/**
 * SPEC §4 "a bad bundle is NACKed (reported in Gateway.status) and the last good one stays
 * active", end to end: the API is made to serve an invalid policy (written straight into its
 * database, past its own validation), the gateway process refuses it, says why in
 * Gateway.status, keeps enforcing the old policy, and recovers once the policy is fixed.
 */

const GATEWAY = 'edge-badbundle';
const LABELS = { env: 'badbundle' };
const POLICY = 'no-deletes';

let api: TestApi;
let mock: MockProvider;
let db: PrismaClient;
let dataDir: string;
let gateway: GatewayProcess;

beforeAll(async () => {
  [api, mock] = await Promise.all([startTestApi(), createMockProvider()]);
  db = createPrismaClient(api.database.url);
  const token = await registerGateway(api, GATEWAY, LABELS);
  await api.operator.call('mediationPolicies.create', {
    body: policyObject(POLICY, LABELS, [hideRule('hide-deletes', 'delete_repo')]),
  });
  dataDir = await mkdtemp(join(tmpdir(), 'toolgate-fault-badbundle-'));
  gateway = await startGateway({
    name: GATEWAY,
    apiUrl: api.url,
    apiToken: token,
    upstreamUrl: mock.url,
    dataDir,
  });
});

afterAll(async () => {
  await killAllGateways();
  await db?.$disconnect();
  await Promise.all([api?.close(), mock?.close()]);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** One request declaring `tools`; returns the tool names the provider received. */
async function providerSees(tools: string[]): Promise<string[]> {
  const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const marker = `probe ${Math.random()}`;
  const completion = await openai.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: marker }],
    tools: openAITools(tools),
  });
  expect(completion.choices[0]?.finish_reason).toBe('stop');
  const seen = mock.requests.last().filter((r) => JSON.stringify(r.body).includes(marker));
  expect(seen).toHaveLength(1);
  return providerToolNames(seen[0]?.body);
}

const SOURCE = 'apps/gateway/src/faults/bad-bundle.test.ts';

describe('a bad bundle from the API', () => {
  it('is NACKed in Gateway.status, the old policy stays in force, a fix through the API heals it', async () => {
    await untilSynced(api, GATEWAY, 10_000);
    const good = (await gatewayStatus(api, GATEWAY)).appliedBundleETag;
    expect(good).toMatch(/^sha256:/);
    expect(await providerSees(['search_code', 'delete_repo'])).toEqual(['search_code']);

    // Corrupt the stored policy behind the API's back, then wake the held long-poll.
    const fault = injectFault(SOURCE, 'invalid policy in the bundle (and a restart meanwhile)');
    const updated = await db.$executeRawUnsafe(
      `UPDATE resources SET spec = jsonb_set(spec::jsonb, '{rules,0,match,name}', '""')::json
       WHERE kind = 'MediationPolicy' AND name = $1`,
      POLICY,
    );
    expect(updated).toBe(1);
    await db.$executeRawUnsafe(
      `SELECT pg_notify('toolgate_changes', $1)`,
      JSON.stringify({ kind: 'MediationPolicy', name: POLICY, resourceVersion: '999999' }),
    );

    await until(
      async () => (await syncedCondition(api, GATEWAY))?.status === 'False',
      10_000,
      'Synced=False',
    );
    const status = await gatewayStatus(api, GATEWAY);
    expect(status.conditions?.find((c) => c.type === 'Synced')).toMatchObject({
      status: 'False',
      reason: 'BundleRejected',
      message: expect.stringContaining('policies[0].spec.rules[0].match.name'),
    });
    console.info(`NACK message: ${status.conditions?.find((c) => c.type === 'Synced')?.message}`);
    expect(status.appliedBundleETag).toBe(good); // the last good bundle is still the one in use
    expect(
      await readMetric(gateway.url, 'toolgate_gateway_sync_failures_total', { reason: 'rejected' }),
    ).toBeGreaterThan(0);
    const ready = await fetch(`${gateway.url}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ok', bundle: good });
    // Still enforcing the old policy: the hidden tool never reaches the provider.
    expect(await providerSees(['search_code', 'delete_repo'])).toEqual(['search_code']);

    // No hot loop: the gateway waits on the rejected ETag instead of re-fetching it.
    const rejectedSoFar = await readMetric(gateway.url, 'toolgate_gateway_sync_failures_total', {
      reason: 'rejected',
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(
      await readMetric(gateway.url, 'toolgate_gateway_sync_failures_total', { reason: 'rejected' }),
    ).toBe(rejectedSoFar);

    // A restart while the API still serves the bad bundle: up from the persisted good bundle,
    // which the rejected one never overwrote; it is refused again, the old policy still holds.
    await gateway.kill('SIGTERM');
    gateway = await restartGateway(gateway);
    expect(await (await fetch(`${gateway.url}/readyz`)).json()).toEqual({
      status: 'ok',
      bundle: good,
    });
    await until(
      async () =>
        (await readMetric(gateway.url, 'toolgate_gateway_sync_failures_total', {
          reason: 'rejected',
        })) > 0,
      10_000,
      'the restarted gateway rejects the bad bundle',
    );
    expect(await syncedCondition(api, GATEWAY)).toMatchObject({
      status: 'False',
      reason: 'BundleRejected',
    });
    expect(await providerSees(['search_code', 'delete_repo'])).toEqual(['search_code']);

    // An operator fixes the policy through the API (and tightens it): applied, Synced=True.
    await api.operator.call('mediationPolicies.replace', {
      params: { name: POLICY },
      body: policyObject(POLICY, LABELS, [
        hideRule('hide-deletes', 'delete_repo'),
        hideRule('hide-drops', 'drop_table'),
      ]),
    });
    await untilSynced(api, GATEWAY, 10_000, 'Synced=True after the fix');
    const healed = await gatewayStatus(api, GATEWAY);
    expect(healed.conditions?.find((c) => c.type === 'Synced')).toMatchObject({
      status: 'True',
      reason: 'BundleApplied',
    });
    expect(healed.appliedBundleETag).not.toBe(good);
    expect(await providerSees(['search_code', 'delete_repo', 'drop_table'])).toEqual([
      'search_code',
    ]);
    fault.survived();
  }, 60_000);
});
