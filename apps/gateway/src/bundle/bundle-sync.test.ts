import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApiClient, createClient } from '@toolgate/contract';
import { type GatewayStatus, hashCanonical } from '@toolgate/core';
import { until } from '@toolgate/core/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import { apiFetch } from '../api-fetch.ts';
import { createMetrics } from '../metrics.ts';
import type { ActiveBundle } from './bundle-store.ts';
import { BundleStore } from './bundle-store.ts';
import { BundleSync, type BundleSyncOptions } from './bundle-sync.ts';
import { SyncStatus } from './sync-status.ts';
import { startFakeBundleServer } from './testing/fake-bundle-server.ts';
import type { BundleRejectedError } from './validate-bundle.ts';

const GATEWAY = 'edge-sync';
const log = pino({ level: 'silent' });
let api: TestApi;
let apiClosed = false;
let token: string;
let gatewayClient: ApiClient;
let dir: string;
let store: BundleStore;

const policy = (name: string, rules: unknown[]) => ({
  apiVersion: 'toolgate.dev/v1' as const,
  kind: 'MediationPolicy' as const,
  metadata: { name },
  spec: { selector: { matchLabels: { env: 'prod' } }, rules } as never,
});

beforeAll(async () => {
  api = await startTestApi();
  ({ token } = await api.identity('gw-sync-id', ['gateway']));
  // The client the gateway runs with (main.ts): its polls ask for gzip, which api-fetch decodes.
  gatewayClient = createClient({ baseUrl: api.url, token, fetch: apiFetch() });
  await api.operator.call('gateways.create', {
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'Gateway',
      metadata: { name: GATEWAY, labels: { env: 'prod' } },
      spec: { identity: 'gw-sync-id' },
    },
  });
  await api.operator.call('mediationPolicies.create', {
    body: policy('guardrails', [
      { id: 'hide-prs', action: 'hide', match: { name: 'create_pull_request' } },
    ]),
  });
  dir = await mkdtemp(join(tmpdir(), 'toolgate-sync-'));
  store = await BundleStore.open(join(dir, 'bundle'), log);
});
afterAll(async () => {
  if (!apiClosed) await api.close();
  await rm(dir, { recursive: true, force: true });
});

/** A sync loop for this test; always stopped at the end of it. */
function startSync(options: Partial<BundleSyncOptions> = {}) {
  const metrics = createMetrics();
  const sync = new BundleSync({
    gateway: GATEWAY,
    store,
    client: gatewayClient,
    metrics,
    log,
    waitSeconds: 30,
    version: '0.1.0-test',
    spoolDepth: () => 7,
    ...options,
  });
  sync.start();
  return { sync, metrics };
}

function nextApplied(): { options: Partial<BundleSyncOptions>; applied: Promise<ActiveBundle> } {
  let resolve: (active: ActiveBundle) => void = () => {};
  const applied = new Promise<ActiveBundle>((r) => {
    resolve = r;
  });
  return { options: { onApplied: resolve }, applied };
}

async function gatewayStatus(): Promise<GatewayStatus | undefined> {
  const gateway = await api.operator.call('gateways.get', { params: { name: GATEWAY } });
  return gateway.status;
}

/** The API's bundle for this gateway as raw JSON, and its ETag. */
async function apiBundle(): Promise<{ bundle: Record<string, unknown>; etag: string }> {
  const response = await gatewayClient.raw('sync.bundle', { params: { name: GATEWAY } });
  const etag = (response.headers.get('etag') ?? '').replaceAll('"', '');
  return { bundle: (await response.json()) as Record<string, unknown>, etag };
}

async function counterValue(
  counter: ReturnType<typeof createMetrics>['syncFailures'],
  reason: string,
) {
  const { values } = await counter.get();
  return values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

describe('BundleSync against the API', () => {
  it('applies the bundle, persists it and reports Synced=True in Gateway.status', async () => {
    const { options, applied } = nextApplied();
    const { sync } = startSync(options);
    try {
      const active = await applied;
      const { etag } = await apiBundle();
      expect(active.etag).toBe(etag);
      expect(active.bundle.policies.map((p) => p.name)).toEqual(['guardrails']);
      expect(active.compiled.rules.map((r) => r.rule.id)).toEqual(['hide-prs']);
      const persisted = JSON.parse(await readFile(join(dir, 'bundle', 'bundle.json'), 'utf8'));
      expect(persisted.etag).toBe(etag);
      await until(async () => (await gatewayStatus())?.appliedBundleETag === etag);
      expect(await gatewayStatus()).toMatchObject({
        appliedBundleETag: etag,
        conditions: [{ type: 'Synced', status: 'True', reason: 'BundleApplied', message: '' }],
        spoolDepth: 7,
        version: '0.1.0-test',
      });
      expect((await gatewayStatus())?.lastSyncTime).toBeDefined();
    } finally {
      await sync.stop();
    }
  });

  it('picks up a policy change within 2 s, and stops a held poll promptly', async () => {
    const before = store.current()?.etag;
    const { options, applied } = nextApplied();
    const { sync } = startSync(options);
    try {
      await new Promise((resolve) => setTimeout(resolve, 300)); // the poll is now held
      const changed = Date.now();
      await api.operator.call('mediationPolicies.create', {
        body: policy('no-deletes', [
          { id: 'hide-deletes', action: 'hide', match: { name: 'delete_*' } },
        ]),
      });
      const active = await applied;
      expect(Date.now() - changed).toBeLessThan(2000);
      expect(active.etag).not.toBe(before);
      expect(active.bundle.policies.map((p) => p.name).sort()).toEqual([
        'guardrails',
        'no-deletes',
      ]);
      expect(store.current()?.etag).toBe(active.etag);
      await new Promise((resolve) => setTimeout(resolve, 200)); // held again
    } finally {
      const stopping = Date.now();
      await sync.stop();
      expect(Date.now() - stopping).toBeLessThan(500);
    }
  });

  describe('a bad bundle is NACKed and the last good one stays', () => {
    const invalidPolicy = (good: Record<string, unknown>) => {
      const bundle = structuredClone(good) as { policies: Array<{ spec: { rules: unknown[] } }> };
      bundle.policies[0]?.spec.rules.push({ id: 'bad', action: 'hide', match: { name: '' } });
      return { body: JSON.stringify(bundle), etag: hashCanonical(bundle) };
    };
    const wrongEtag = (good: Record<string, unknown>) => {
      const bundle = { ...good, identities: [] };
      return { body: JSON.stringify(bundle), etag: `sha256:${'0'.repeat(64)}` };
    };
    const garbage = () => ({
      body: '<html>502 Bad Gateway</html>',
      etag: `sha256:${'1'.repeat(64)}`,
    });

    it.each([
      {
        what: 'an invalid policy',
        make: invalidPolicy,
        error: 'policies[0].spec.rules[1].match.name: must not be empty',
      },
      { what: 'a wrong ETag', make: wrongEtag, error: 'does not match the bundle' },
      { what: 'a body that is not JSON', make: garbage, error: '(root): body is not JSON' },
    ])('$what', async ({ make, error }) => {
      const good = store.current() as ActiveBundle;
      const bad = make((await apiBundle()).bundle);
      const fake = await startFakeBundleServer();
      fake.serve(bad.body, bad.etag);
      let rejected: ((e: BundleRejectedError) => void) | undefined;
      const rejection = new Promise<BundleRejectedError>((resolve) => {
        rejected = resolve;
      });
      const { sync, metrics } = startSync({
        // Bundles from the fake server; status to the real API.
        client: createClient({ baseUrl: fake.url, token }),
        statusClient: gatewayClient,
        ...(rejected ? { onRejected: rejected } : {}),
      });
      try {
        expect((await rejection).message).toContain(error);
        expect(store.current()?.etag).toBe(good.etag);
        await until(async () => (await gatewayStatus())?.conditions[0]?.status === 'False');
        const status = await gatewayStatus();
        expect(status?.appliedBundleETag).toBe(good.etag);
        expect(status?.conditions[0]).toMatchObject({ reason: 'BundleRejected' });
        expect(status?.conditions[0]?.message).toContain(error);
        expect(await counterValue(metrics.syncFailures, 'rejected')).toBe(1);

        // No hot loop: the next poll names the rejected ETag and is held.
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(fake.requests.map((r) => r.ifNoneMatch)).toEqual([good.etag, bad.etag]);

        // Once the source serves a good bundle again, the NACK clears.
        const { bundle, etag } = await apiBundle();
        fake.serve(JSON.stringify(bundle), etag);
        await until(async () => (await gatewayStatus())?.conditions[0]?.status === 'True');
        expect(store.current()?.etag).toBe(good.etag);
      } finally {
        await sync.stop();
        await fake.close();
      }
    });
  });

  it('counts an unreachable API, backs off with growing delays, keeps the bundle', async () => {
    const port = await closedPort();
    const delays: number[] = [];
    const { sync, metrics } = startSync({
      client: createClient({ baseUrl: `http://127.0.0.1:${port}`, token }),
      backoff: { initialMs: 20, maxMs: 5000 },
      onUnreachable: (_error, retryInMs) => delays.push(retryInMs),
    });
    try {
      await until(() => delays.length >= 6);
      expect(await counterValue(metrics.syncFailures, 'unreachable')).toBeGreaterThanOrEqual(6);
      for (let i = 1; i < 6; i++) expect(delays[i]).toBeGreaterThan(delays[i - 1] as number);
      expect(store.ready).toBe(true);
      expect(sync.gatewayStatus.conditions[0]).toMatchObject({
        status: 'False',
        reason: 'ApiUnreachable',
      });
    } finally {
      await sync.stop();
    }
  });

  it('restarts from disk with the API down and enforces the same bundle', async () => {
    const before = store.current() as ActiveBundle;
    await api.close();
    apiClosed = true;
    const restarted = await BundleStore.open(join(dir, 'bundle'), log);
    expect(restarted.ready).toBe(true);
    expect(restarted.current()?.etag).toBe(before.etag);
    expect(
      restarted
        .current()
        ?.compiled.rules.map((r) => r.rule.id)
        .sort(),
    ).toEqual(['hide-deletes', 'hide-prs']);
    const failures: Error[] = [];
    const { sync } = startSync({
      store: restarted,
      client: createClient({ baseUrl: api.url, token }),
      onUnreachable: (error) => failures.push(error),
    });
    try {
      await until(() => failures.length >= 1);
      expect(restarted.current()?.etag).toBe(before.etag);
    } finally {
      await sync.stop();
    }
  });
});

describe('SyncStatus', () => {
  it('moves lastTransitionTime only when Synced flips', () => {
    let clock = Date.UTC(2026, 0, 1);
    const status = new SyncStatus({
      gateway: 'g',
      client: createClient({ baseUrl: 'http://127.0.0.1:1' }),
      log,
      appliedEtag: () => 'sha256:x',
      now: () => new Date(clock),
      signal: new AbortController().signal,
    });
    expect(status.set('True', 'BundleApplied', '')).toBe(true);
    const applied = status.synced?.lastTransitionTime;
    clock += 60_000;
    expect(status.set('True', 'BundleApplied', '')).toBe(false);
    clock += 60_000;
    expect(status.set('False', 'ApiUnreachable', 'down')).toBe(true);
    const unreachable = status.synced?.lastTransitionTime;
    expect(unreachable).not.toBe(applied);
    clock += 60_000;
    expect(status.set('False', 'BundleRejected', 'bad')).toBe(true);
    expect(status.synced?.lastTransitionTime).toBe(unreachable);
  });
});

/** A port nothing listens on: connections are refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 1;
}
