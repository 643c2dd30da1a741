import { until } from '@toolgate/core/testing';
import OpenAI from 'openai';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import { BundleSync } from '../bundle/bundle-sync.ts';
import { createMetrics } from '../metrics.ts';
import { decodeSpooledReceipt } from '../receipts/spooled-receipt.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * Binding an agent by its Toolgate token, end to end: the API puts the token's hash in the
 * gateway's bundle, the gateway verifies it offline, never forwards it, and a revocation reaches
 * the gateway through the bundle (long-poll woken by the revoke).
 */
const GATEWAY = 'test-gw';
let api: TestApi;
let gw: TestGateway;
let sync: BundleSync;
let agentToken: string;
let agentTokenId: string;

beforeAll(async () => {
  api = await startTestApi();
  const { client: gatewayClient } = await api.identity('token-gw-id', ['gateway']);
  await api.operator.call('gateways.create', {
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'Gateway',
      metadata: { name: GATEWAY, labels: { env: 'token-test' } },
      spec: { identity: 'token-gw-id' },
    },
  });
  await api.operator.call('mediationPolicies.create', {
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'MediationPolicy',
      metadata: { name: 'agents-only' },
      spec: {
        selector: { matchLabels: { env: 'token-test' } },
        unknownIdentities: 'reject',
        rules: [],
      } as never,
    },
  });
  await api.operator.call('identities.create', {
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'Identity',
      metadata: { name: 'ci-agent' },
      spec: { type: 'service', roles: ['agent'] },
    },
  });
  const issued = await api.operator.call('tokens.issueToken', {
    params: { name: 'ci-agent' },
    body: { description: 'agent key' },
  });
  agentToken = issued.token;
  agentTokenId = issued.id;
  gw = await startTestGateway();
  sync = new BundleSync({
    gateway: GATEWAY,
    store: gw.bundles,
    client: gatewayClient,
    metrics: createMetrics(),
    log: pino({ level: 'silent' }),
    waitSeconds: 30,
    spoolDepth: () => 0,
  });
  sync.start();
  await until(() => gw.bundles.current() !== undefined);
});

afterAll(async () => {
  await sync?.stop();
  await gw?.close();
  await api?.close();
});

const ask = (apiKey: string, headers: Record<string, string> = {}) =>
  new OpenAI({
    baseURL: `${gw.url}/v1`,
    apiKey,
    maxRetries: 0,
    defaultHeaders: headers,
  }).chat.completions
    .create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello' }],
    })
    .withResponse();

async function lastReceiptIdentity() {
  const [last] = (await gw.spool.pendingEncoded(10_000)).slice(-1);
  if (!last) throw new Error('no receipt spooled');
  return JSON.parse(decodeSpooledReceipt(last.payload).receiptJson.toString('utf8')).identity;
}

describe("identity binding by the agent's Toolgate token", () => {
  it('the bundle carries the token hash, never the secret', () => {
    const bundle = gw.bundles.current()?.bundle;
    const agent = bundle?.identities.find((i) => i.name === 'ci-agent');
    expect(agent?.tokens).toEqual([
      { sha256: expect.stringMatching(/^[0-9a-f]{64}$/), expiresAt: null },
    ]);
    expect(JSON.stringify(bundle)).not.toContain(agentToken);
  });

  it('binds the SDK key slot to its identity and never forwards the token upstream', async () => {
    gw.mock.requests.clear();
    const { response } = await ask(agentToken, { 'x-session-id': 'run-7' });
    expect(response.status).toBe(200);
    expect(await lastReceiptIdentity()).toEqual({
      service: 'ci-agent',
      session: 'run-7',
      binding: 'verified',
    });
    const [seen] = gw.mock.requests.last(1);
    expect(seen?.headers.authorization).toBeUndefined();
  });

  it('x-toolgate-token works beside a provider key, which still goes upstream', async () => {
    gw.mock.requests.clear();
    const providerKey = ['sk', 'provider', 'key'].join('-');
    const { response } = await ask(providerKey, { 'x-toolgate-token': agentToken });
    expect(response.status).toBe(200);
    expect((await lastReceiptIdentity()).binding).toBe('verified');
    const [seen] = gw.mock.requests.last(1);
    expect(seen?.headers.authorization).toBe('[redacted]'); // sent (the mock's log hides values)
    expect(seen?.headers['x-toolgate-token']).toBeUndefined();
  });

  it("refuses the agent's name in a header without its token (a claim proves nothing)", async () => {
    gw.mock.requests.clear();
    const providerKey = ['sk', 'provider', 'key'].join('-');
    await expect(ask(providerKey, { 'x-service-id': 'ci-agent' })).rejects.toMatchObject({
      status: 403,
    });
    expect(gw.mock.requests.last(10)).toHaveLength(0);
  });

  it('refuses an unknown token, and a revoked one as soon as the bundle changes', async () => {
    const forged = `tg_${'A'.repeat(43)}`;
    await expect(ask(forged)).rejects.toMatchObject({ status: 403 });
    const before = gw.bundles.current()?.etag;
    await api.operator.call('tokens.revokeToken', {
      params: { name: 'ci-agent', tokenId: agentTokenId },
    });
    await until(() => gw.bundles.current()?.etag !== before);
    await expect(ask(agentToken)).rejects.toMatchObject({ status: 403 });
  });
});
