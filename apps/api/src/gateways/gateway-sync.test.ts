import type { ApiClient } from '@toolgate/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, registerGateway } from '../receipts/receipts-testing.ts';
import { startTestApi, type TestApi } from '../testing/test-api.ts';

let api: TestApi;
let auditor: ApiClient;
let gateway: ApiClient;
beforeAll(async () => {
  api = await startTestApi();
  auditor = (await api.identity('sync-auditor', ['auditor'])).client;
  gateway = await registerGateway(api, 'edge-h');
  await registerGateway(api, 'edge-quiet');
});
afterAll(() => api.close());

function synced(ok: boolean, message = '') {
  return {
    type: 'Synced',
    status: ok ? ('True' as const) : ('False' as const),
    reason: ok ? 'BundleApplied' : 'BundleRejected',
    message,
    lastTransitionTime: new Date().toISOString(),
  };
}

async function report(etag: string, ok: boolean, message = '') {
  await gateway.call('gateways.replaceStatus', {
    params: { name: 'edge-h' },
    body: {
      status: {
        appliedBundleETag: etag,
        lastSyncTime: new Date().toISOString(),
        spoolDepth: 0,
        conditions: [synced(ok, message)],
      },
    },
  });
}

describe('gateway sync', () => {
  it('lists every gateway with its desired and applied bundle and its state', async () => {
    const { items } = await call(auditor, 'gatewaySync.list');
    const quiet = items.find((g) => g.name === 'edge-quiet');
    expect(quiet).toMatchObject({ state: 'stale', appliedBundleETag: null, lastSyncTime: null });
    expect(quiet?.desiredBundleETag).toMatch(/^sha256:/);

    const etag = items.find((g) => g.name === 'edge-h')?.desiredBundleETag as string;
    await report('sha256:older', true);
    const behind = await call(auditor, 'gatewaySync.list');
    expect(behind.items.find((g) => g.name === 'edge-h')?.state).toBe('behind');
    await report(etag, true);
    const after = await call(auditor, 'gatewaySync.list');
    expect(after.items.find((g) => g.name === 'edge-h')).toMatchObject({
      state: 'in_sync',
      appliedBundleETag: etag,
      desiredBundleETag: etag,
    });
  });

  it('folds repeated reports into stretches, newest first, with the NACK message', async () => {
    const desired = (await call(auditor, 'gatewaySync.list')).items.find((g) => g.name === 'edge-h')
      ?.desiredBundleETag as string;
    await report(desired, true);
    await report(desired, true);
    await report(desired, false, 'rules[0].match.name: must not be empty');
    await report(desired, false, 'rules[0].match.name: must not be empty');
    const history = await call(auditor, 'gatewaySync.history', { params: { name: 'edge-h' } });
    expect(history.sync.state).toBe('nack');
    expect(history.sync.message).toBe('rules[0].match.name: must not be empty');
    expect(
      history.items.map((c) => [c.sync, c.reports, c.message, c.appliedBundleETag === desired]),
    ).toEqual([
      ['nack', 2, 'rules[0].match.name: must not be empty', true],
      ['synced', 3, null, true],
      ['synced', 1, null, false],
      // The operator's create: no status reported yet.
      ['unknown', 1, null, false],
    ]);
    expect(history.complete).toBe(true);
    const limited = await call(auditor, 'gatewaySync.history', {
      params: { name: 'edge-h' },
      query: { limit: 1 },
    });
    expect(limited.items).toHaveLength(1);
    expect(limited.complete).toBe(false);
  });

  it('answers 404 for an unknown gateway and refuses a limit out of range naming it', async () => {
    const missing = await api.fetch('/apis/toolgate.dev/v1/gateways/nope/sync-history', {
      token: api.operatorToken,
    });
    expect(missing.status).toBe(404);
    const bad = await api.fetch('/apis/toolgate.dev/v1/gateways/edge-h/sync-history?limit=999', {
      token: api.operatorToken,
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('limit');
  });

  it('starts over for a gateway deleted and created again under the same name', async () => {
    await api.operator.call('gateways.delete', { params: { name: 'edge-quiet' } });
    await api.operator.call('gateways.create', {
      body: {
        apiVersion: 'toolgate.dev/v1',
        kind: 'Gateway',
        metadata: { name: 'edge-quiet' },
        spec: { identity: 'edge-quiet-identity' },
      },
    });
    const history = await call(auditor, 'gatewaySync.history', { params: { name: 'edge-quiet' } });
    expect(history.items).toHaveLength(1);
    expect(history.complete).toBe(true);
  });
});
