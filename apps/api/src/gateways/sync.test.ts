import { get } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { GatewayBundle } from '@toolgate/contract';
import { hashCanonical, SEED_PROVIDER_PROFILES } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStatus, startTestApi, type TestApi } from '../testing/test-api.ts';

let api: TestApi;
let gatewayToken: string;
const BUNDLE = '/apis/toolgate.dev/v1/gateways/edge-a/bundle';

const policy = (name: string, env: string, priority: number, rules: unknown[] = []) => ({
  apiVersion: 'toolgate.dev/v1' as const,
  kind: 'MediationPolicy' as const,
  metadata: { name },
  spec: { selector: { matchLabels: { env } }, priority, rules } as never,
});
const gateway = (name: string, identity: string, labels: Record<string, string>) => ({
  apiVersion: 'toolgate.dev/v1' as const,
  kind: 'Gateway' as const,
  metadata: { name, labels },
  spec: { identity },
});

beforeAll(async () => {
  api = await startTestApi();
  gatewayToken = (await api.identity('gw-a', ['gateway'])).token;
  await api.identity('agent-alice', ['agent'], 'human');
  await api.operator.call('gateways.create', { body: gateway('edge-a', 'gw-a', { env: 'prod' }) });
  await api.operator.call('mediationPolicies.create', { body: policy('b-prod', 'prod', 10) });
  await api.operator.call('mediationPolicies.create', { body: policy('a-prod', 'prod', 10) });
  await api.operator.call('mediationPolicies.create', { body: policy('z-urgent', 'prod', 100) });
  await api.operator.call('mediationPolicies.create', { body: policy('dev-only', 'dev', 1000) });
});
afterAll(() => api.close());

async function getBundle(etag?: string, wait?: number) {
  return api.fetch(`${BUNDLE}${wait !== undefined ? `?wait=${wait}` : ''}`, {
    token: gatewayToken,
    headers: etag ? { 'if-none-match': `"${etag}"` } : {},
  });
}

describe('gateway bundle', () => {
  it('holds the policies the gateway labels select, in merged order, and no secrets', async () => {
    const response = await getBundle();
    expect(response.status).toBe(200);
    const bundle = (await response.json()) as GatewayBundle;
    expect(bundle.policies.map((p) => p.name)).toEqual(['z-urgent', 'a-prod', 'b-prod']);
    // Agent identities with the hashes of their live tokens (for binding by token), never secrets.
    expect(bundle.identities).toEqual([
      {
        name: 'agent-alice',
        type: 'human',
        roles: ['agent'],
        tokens: [{ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), expiresAt: null }],
      },
    ]);
    expect(bundle.contracts).toHaveLength(6);
    // Every seeded provider surface's profile, OpenAI Responses' and Gemini's among them.
    expect(bundle.profiles.map((p) => p.surface).sort()).toEqual(
      SEED_PROVIDER_PROFILES.map((p) => p.spec.surface).sort(),
    );
    expect(bundle.profiles.map((p) => p.surface)).toContain('openai-responses');
    expect(bundle.profiles.map((p) => p.surface)).toContain('gemini');
    expect(response.headers.get('etag')).toMatch(/^"sha256:[0-9a-f]{64}"$/);
    expect(JSON.stringify(bundle)).not.toMatch(/tg_[A-Za-z0-9_-]{20}|tokenHash|token_hash/);
  });

  it('gzips the answer for a poll that accepts it: the same text, the ETag its hash', async () => {
    const read = (encoding?: string) =>
      new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        const headers: Record<string, string> = { authorization: `Bearer ${gatewayToken}` };
        if (encoding) headers['accept-encoding'] = encoding;
        get(`${api.url}${BUNDLE}`, { headers }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({ headers: response.headers, body: Buffer.concat(chunks) }),
          );
        }).on('error', reject);
      });
    const plain = await read();
    const zipped = await read('br;q=1, gzip;q=0.8');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('accept-encoding');
    expect(zipped.headers.etag).toBe(plain.headers.etag);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 3);
    expect(`"${hashCanonical(JSON.parse(plain.body.toString('utf8')))}"`).toBe(plain.headers.etag);
    expect((await read('gzip;q=0')).headers['content-encoding']).toBeUndefined();
  });

  it('answers 304 for the ETag the gateway holds, and after a quiet long-poll', async () => {
    const etag = (await getBundle()).headers.get('etag')?.replaceAll('"', '') as string;
    expect((await getBundle(etag)).status).toBe(304);
    const started = Date.now();
    expect((await getBundle(etag, 1)).status).toBe(304);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('wakes a long-polling gateway as soon as a selected policy changes', async () => {
    const etag = (await getBundle()).headers.get('etag')?.replaceAll('"', '') as string;
    const poll = getBundle(etag, 30);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    await api.operator.call('mediationPolicies.create', {
      body: policy('c-prod', 'prod', 10, [{ id: 'h', action: 'hide', match: { name: 'x' } }]),
    });
    const response = await poll;
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(response.headers.get('etag')).not.toBe(`"${etag}"`);
    const bundle = (await response.json()) as GatewayBundle;
    expect(bundle.policies.map((p) => p.name)).toContain('c-prod');
  });

  it('reflects a change of every kind it is made of (each part is reloaded when it can have changed)', async () => {
    const bundleNow = async () => {
      // Warm: the snapshot after the previous change is loaded, so the next one is a partial reload.
      const response = await getBundle();
      return (await response.json()) as GatewayBundle;
    };
    await bundleNow();
    await api.identity('agent-bob', ['agent'], 'human');
    const bob = async () => (await bundleNow()).identities.find((i) => i.name === 'agent-bob');
    expect((await bob())?.tokens).toHaveLength(1);
    // A second token, then both revoked: only the identity's tokens changed.
    const second = await api.operator.call('tokens.issueToken', {
      params: { name: 'agent-bob' },
      body: { ttlSeconds: 3600 },
    });
    expect((await bob())?.tokens).toHaveLength(2);
    const { items } = await api.operator.call('tokens.listTokens', {
      params: { name: 'agent-bob' },
    });
    for (const t of items) {
      await api.operator.call('tokens.revokeToken', {
        params: { name: 'agent-bob', tokenId: t.id },
      });
    }
    expect(second.expiresAt).not.toBeNull();
    expect((await bob())?.tokens ?? []).toHaveLength(0);
    await api.operator.call('mcpServers.create', {
      body: {
        apiVersion: 'toolgate.dev/v1',
        kind: 'McpServer',
        metadata: { name: 'sync-mcp' },
        spec: { url: 'http://127.0.0.1:9/mcp' },
      },
    });
    expect((await bundleNow()).mcpServers?.map((m) => m.name)).toContain('sync-mcp');
    await api.operator.call('hostedTools.create', {
      body: {
        apiVersion: 'toolgate.dev/v1',
        kind: 'HostedTool',
        metadata: { name: 'sync-hosted' },
        spec: {
          tool: { name: 'sync_hosted', description: 'A tool.' },
          endpoint: { url: 'http://127.0.0.1:9/tool' },
        },
      },
    });
    expect((await bundleNow()).hostedTools?.map((h) => h.name)).toContain('sync-hosted');
    // The gateway's own labels: it now selects the dev policies.
    const current = await api.operator.call('gateways.get', { params: { name: 'edge-a' } });
    await api.operator.call('gateways.replace', {
      params: { name: 'edge-a' },
      body: { ...current, metadata: { ...current.metadata, labels: { env: 'dev' } } } as never,
    });
    expect((await bundleNow()).policies.map((p) => p.name)).toContain('dev-only');
    const relabelled = await api.operator.call('gateways.get', { params: { name: 'edge-a' } });
    await api.operator.call('gateways.replace', {
      params: { name: 'edge-a' },
      body: {
        ...relabelled,
        metadata: { ...relabelled.metadata, labels: { env: 'prod' } },
      } as never,
    });
    expect((await bundleNow()).policies.map((p) => p.name)).not.toContain('dev-only');
  });

  it('does not change for a policy the gateway does not select', async () => {
    const etag = (await getBundle()).headers.get('etag')?.replaceAll('"', '') as string;
    await api.operator.call('mediationPolicies.create', { body: policy('dev-2', 'dev', 1) });
    expect((await getBundle(etag)).status).toBe(304);
  });

  it('records the gateway’s ACK/NACK in Gateway.status', async () => {
    const status = {
      appliedBundleETag: `sha256:${'0'.repeat(64)}`,
      conditions: [
        {
          type: 'Synced',
          status: 'False',
          reason: 'BundleRejected',
          message: 'policies[0].spec.rules[1].match.name: must not be empty',
          lastTransitionTime: new Date().toISOString(),
        },
      ],
      lastSyncTime: new Date().toISOString(),
      spoolDepth: 3,
      version: '0.1.0',
    };
    const response = await api.fetch('/apis/toolgate.dev/v1/gateways/edge-a/status', {
      method: 'PUT',
      token: gatewayToken,
      body: JSON.stringify({ status }),
    });
    expect(response.status).toBe(200);
    const read = await api.operator.call('gateways.get', { params: { name: 'edge-a' } });
    expect(read.status).toMatchObject({
      spoolDepth: 3,
      conditions: [{ type: 'Synced', status: 'False', reason: 'BundleRejected' }],
    });
  });

  it('refuses a Gateway whose identity lacks the gateway role', async () => {
    const response = await api.fetch('/apis/toolgate.dev/v1/gateways', {
      method: 'POST',
      token: api.operatorToken,
      body: JSON.stringify(gateway('edge-x', 'agent-alice', {})),
    });
    expect(response.status).toBe(422);
    expect((await readStatus(response)).details?.causes?.[0]?.field).toBe('spec.identity');
  });
});

describe('watch', () => {
  it('streams changes after a resourceVersion', async () => {
    const list = await api.operator.call('mediationPolicies.list', {});
    const controller = new AbortController();
    const response = await api.fetch(
      `/apis/toolgate.dev/v1/mediationpolicies?watch=true&resourceVersion=${list.metadata.resourceVersion}`,
      { token: api.operatorToken, signal: controller.signal },
    );
    expect(response.status).toBe(200);
    const reader = response.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    await api.operator.call('mediationPolicies.create', { body: policy('watched', 'qa', 1) });
    await api.operator.call('mediationPolicies.delete', { params: { name: 'watched' } });
    const events: Array<{ type: string; object: { metadata: { name: string } } }> = [];
    let buffer = '';
    while (events.length < 2) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += new TextDecoder().decode(value);
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) if (line) events.push(JSON.parse(line));
    }
    controller.abort();
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', 'watched'],
      ['DELETED', 'watched'],
    ]);
  });
});

describe('watch history', () => {
  let small: TestApi;
  beforeAll(async () => {
    small = await startTestApi({ WATCH_HISTORY: '100' });
    for (let i = 0; i < 110; i++) {
      await small.operator.call('mediationPolicies.create', { body: policy(`p-${i}`, 'x', 1) });
    }
  });
  afterAll(() => small.close());

  it('answers 410 Gone for a resourceVersion older than the kept history', async () => {
    const response = await small.fetch(
      '/apis/toolgate.dev/v1/mediationpolicies?watch=true&resourceVersion=1',
      {
        token: small.operatorToken,
      },
    );
    expect(response.status).toBe(410);
    expect(await readStatus(response)).toMatchObject({ kind: 'Status', reason: 'Gone' });
  });
});
