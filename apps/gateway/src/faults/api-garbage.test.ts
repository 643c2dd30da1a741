import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '@toolgate/core/testing';
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
import { type Fault, type FaultProxy, type SeenRequest, startFaultProxy } from './fault-proxy.ts';
import { readMetric } from './metrics.ts';
import { type GatewayProcess, killAllGateways, startGateway } from './processes.ts';

/**
 * SPEC §4 "the bundle is validated before use; a bad bundle is NACKed and the last good one
 * stays active", against a control plane that misbehaves on the wire: an HTTP proxy between a
 * gateway process and the real API answers its bundle polls with a wrong ETag, garbage, a
 * truncated body, JSON that is no bundle, another gateway's (genuine) bundle, or an error page.
 * Each time the gateway keeps enforcing the last good policy, says why in `Gateway.status` (the
 * status writes pass through) and recovers once the API answers properly again.
 */

const SOURCE = 'apps/gateway/src/faults/api-garbage.test.ts';
const GATEWAY = 'edge-garbage';
const OTHER = 'edge-garbage-other';
const LABELS = { env: 'garbage' };
const OTHER_LABELS = { env: 'garbage-other' };
const BOGUS_ETAG = (digit: string) => `"sha256:${digit.repeat(64)}"`;

let api: TestApi;
let proxy: FaultProxy;
let mock: MockProvider;
let dataDir: string;
let gateway: GatewayProcess;
let otherToken: string;

beforeAll(async () => {
  [api, mock] = await Promise.all([startTestApi(), createMockProvider()]);
  proxy = await startFaultProxy(api.url);
  const token = await registerGateway(api, GATEWAY, LABELS);
  otherToken = await registerGateway(api, OTHER, OTHER_LABELS);
  await api.operator.call('mediationPolicies.create', {
    body: policyObject('no-deletes', LABELS, [hideRule('hide-deletes', 'delete_repo')]),
  });
  // The other gateway's policy hides nothing of ours: enforcing it would leak delete_repo.
  await api.operator.call('mediationPolicies.create', {
    body: policyObject('other-fleet', OTHER_LABELS, [hideRule('hide-reads', 'read_file')]),
  });
  dataDir = await mkdtemp(join(tmpdir(), 'toolgate-fault-garbage-'));
  gateway = await startGateway({
    name: GATEWAY,
    apiUrl: proxy.url,
    apiToken: token,
    upstreamUrl: mock.url,
    dataDir,
    // Short polls, so each injected answer is met within a second or so.
    env: { SYNC_WAIT_SECONDS: '1' },
  });
});

afterAll(async () => {
  await killAllGateways();
  await proxy?.close();
  await Promise.all([api?.close(), mock?.close()]);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const isBundlePoll = ({ method, url }: SeenRequest) =>
  method === 'GET' && url.startsWith(`/apis/toolgate.dev/v1/gateways/${GATEWAY}/bundle`);

/** Answers bundle polls with `fault`; everything else (status writes, receipts) passes. */
function onBundlePolls(fault: Fault): void {
  proxy.fault = (request) => (isBundlePoll(request) ? fault : undefined);
}

/** The tool names the provider received for one request declaring `tools`. */
async function providerSees(tools: string[]): Promise<string[]> {
  const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const marker = `probe ${Math.random()}`;
  await openai.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: marker }],
    tools: openAITools(tools),
  });
  const seen = mock.requests.last().filter((r) => JSON.stringify(r.body).includes(marker));
  expect(seen).toHaveLength(1);
  return providerToolNames(seen[0]?.body);
}

/** The API's genuine bundle for the other gateway, and its ETag. */
async function otherGatewaysBundle(): Promise<{ body: string; etag: string }> {
  const response = await fetch(`${api.url}/apis/toolgate.dev/v1/gateways/${OTHER}/bundle`, {
    headers: { authorization: `Bearer ${otherToken}` },
  });
  expect(response.status).toBe(200);
  return { body: await response.text(), etag: response.headers.get('etag') as string };
}

interface Case {
  what: string;
  fault: () => Promise<Fault> | Fault;
  reason: 'BundleRejected' | 'ApiUnreachable';
  says: string;
}

const CASES: Case[] = [
  {
    what: 'the right bundle under a wrong ETag',
    fault: () => ({
      requestHeaders: { 'if-none-match': undefined },
      rewrite: (answer) => ({ ...answer, headers: { ...answer.headers, etag: BOGUS_ETAG('0') } }),
    }),
    reason: 'BundleRejected',
    says: 'does not match the bundle',
  },
  {
    what: 'an HTML page with status 200',
    fault: () => ({
      respond: {
        status: 200,
        headers: { 'content-type': 'application/json', etag: BOGUS_ETAG('1') },
        body: '<html><body>Welcome to nginx!</body></html>',
      },
    }),
    reason: 'BundleRejected',
    says: 'body is not JSON',
  },
  {
    what: 'a gzipped bundle cut off half-way',
    fault: () => ({
      requestHeaders: { 'if-none-match': undefined },
      rewrite: (answer) => ({
        status: 200,
        headers: { ...answer.headers, etag: BOGUS_ETAG('2') },
        body: answer.body.subarray(0, Math.floor(answer.body.length / 2)),
      }),
    }),
    reason: 'BundleRejected',
    says: 'body is not JSON: its gzip encoding cannot be decoded',
  },
  {
    what: 'a plain bundle cut off half-way',
    fault: () => ({
      requestHeaders: { 'if-none-match': undefined, 'accept-encoding': undefined },
      rewrite: (answer) => ({
        status: 200,
        headers: { ...answer.headers, etag: BOGUS_ETAG('4') },
        body: answer.body.subarray(0, Math.floor(answer.body.length / 2)),
      }),
    }),
    reason: 'BundleRejected',
    says: 'body is not JSON',
  },
  {
    what: 'JSON that is no bundle',
    fault: () => ({
      respond: {
        status: 200,
        headers: { 'content-type': 'application/json', etag: BOGUS_ETAG('3') },
        body: JSON.stringify({ hello: 'world', policies: 'all of them' }),
      },
    }),
    reason: 'BundleRejected',
    says: 'policies',
  },
  {
    what: 'a bundle without an ETag',
    fault: () => ({
      requestHeaders: { 'if-none-match': undefined },
      rewrite: (answer) => {
        const { etag: _etag, ...headers } = answer.headers;
        return { ...answer, headers };
      },
    }),
    reason: 'BundleRejected',
    says: 'no ETag',
  },
  {
    what: "another gateway's genuine bundle, ETag and all",
    fault: async () => {
      const other = await otherGatewaysBundle();
      return {
        respond: {
          status: 200,
          headers: { 'content-type': 'application/json', etag: other.etag },
          body: other.body,
        },
      };
    },
    reason: 'BundleRejected',
    says: `this gateway is "${GATEWAY}"`,
  },
  {
    what: 'a 500 error page',
    fault: () => ({
      respond: {
        status: 500,
        headers: { 'content-type': 'text/html' },
        body: '<h1>Internal Server Error</h1>',
      },
    }),
    reason: 'ApiUnreachable',
    says: 'API answered 500',
  },
];

describe('an API that answers bundle polls with garbage', () => {
  it('NACKs each, keeps enforcing the last good policy, and heals when the API is sane again', async () => {
    await untilSynced(api, GATEWAY, 15_000);
    const good = (await gatewayStatus(api, GATEWAY)).appliedBundleETag;
    expect(good).toMatch(/^sha256:/);
    expect(await providerSees(['search_code', 'delete_repo', 'read_file'])).toEqual([
      'search_code',
      'read_file',
    ]);

    for (const { what, fault, reason, says } of CASES) {
      const injected = injectFault(SOURCE, `API answers bundle polls with ${what}`);
      onBundlePolls(await fault());
      await until(
        async () => {
          const synced = await syncedCondition(api, GATEWAY);
          return synced?.reason === reason && synced.message.includes(says);
        },
        20_000,
        () => `${what}: Synced=False ${reason} "${says}"`,
      );
      const status = await gatewayStatus(api, GATEWAY);
      expect(status.appliedBundleETag, what).toBe(good);
      expect(status.conditions?.find((c) => c.type === 'Synced')?.status, what).toBe('False');
      expect(await (await fetch(`${gateway.url}/readyz`)).json(), what).toEqual({
        status: 'ok',
        bundle: good,
      });
      expect(await providerSees(['search_code', 'delete_repo', 'read_file']), what).toEqual([
        'search_code',
        'read_file',
      ]);

      // The API is sane again: the gateway confirms the good bundle, Synced=True.
      proxy.fault = () => undefined;
      await untilSynced(api, GATEWAY, 40_000, () => `${what}: Synced=True again`);
      expect((await gatewayStatus(api, GATEWAY)).appliedBundleETag, what).toBe(good);
      injected.survived();
    }
    expect(
      await readMetric(gateway.url, 'toolgate_gateway_sync_failures_total', { reason: 'rejected' }),
    ).toBeGreaterThanOrEqual(CASES.filter((c) => c.reason === 'BundleRejected').length);
  }, 240_000);
});
