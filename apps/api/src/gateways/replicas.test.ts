import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplica, startTestApi, type TestApi } from '../testing/test-api.ts';

let api: TestApi;
let replica: Awaited<ReturnType<typeof startReplica>>;
let gatewayToken: string;

beforeAll(async () => {
  api = await startTestApi();
  replica = await startReplica(api);
  gatewayToken = (await api.identity('gw-r', ['gateway'])).token;
  await api.operator.call('gateways.create', {
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'Gateway',
      metadata: { name: 'edge-r', labels: { env: 'prod' } },
      spec: { identity: 'gw-r' },
    },
  });
});
afterAll(async () => {
  await replica.close();
  await api.close();
});

describe('several API replicas on one PostgreSQL', () => {
  it('wakes a gateway long-polling replica B when an operator applies on replica A', async () => {
    const path = '/apis/toolgate.dev/v1/gateways/edge-r/bundle';
    const headers = { authorization: `Bearer ${gatewayToken}` };
    const first = await fetch(replica.url + path, { headers });
    const etag = first.headers.get('etag') as string;
    const poll = fetch(`${replica.url}${path}?wait=20`, {
      headers: { ...headers, 'if-none-match': etag },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const applied = Date.now();
    await api.operator.call('mediationPolicies.create', {
      body: {
        apiVersion: 'toolgate.dev/v1',
        kind: 'MediationPolicy',
        metadata: { name: 'across' },
        spec: {
          selector: { matchLabels: { env: 'prod' } },
          rules: [{ id: 'h', action: 'hide', match: { name: 'x' } }],
        } as never,
      },
    });
    const response = await poll;
    expect(response.status).toBe(200);
    expect(Date.now() - applied).toBeLessThan(3000);
    expect(response.headers.get('etag')).not.toBe(etag);
    // Both replicas compute the same ETag for the same content.
    const fromA = await api.fetch(path, { token: gatewayToken });
    expect(fromA.headers.get('etag')).toBe(response.headers.get('etag'));
  });
});
