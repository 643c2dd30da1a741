import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApiClient, createClient } from '@toolgate/contract';
import { until } from '@toolgate/core/testing';
import { findFreePort } from '@toolgate/db';
import { createTestDatabase, type TestDatabase } from '@toolgate/db/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Processes, type Started } from '../../bench/gateway/processes.ts';

/**
 * Scale-out, black-box: two API replicas on one PostgreSQL and three gateways spread over them
 * (two on replica A, one on replica B), every one its own process. An apply on one replica
 * reaches the gateways attached to the other (LISTEN/NOTIFY wakes every replica's long-polls);
 * receipts from all gateways arrive and verify; replica B is killed (SIGKILL) while its gateway
 * ships, then started again: nothing is lost and nothing is stored twice.
 */

const HOST = '127.0.0.1';
const GATEWAYS = ['fleet-1', 'fleet-2', 'fleet-3'] as const;
type GatewayName = (typeof GATEWAYS)[number];
/** Which replica each gateway syncs from and ships to. */
const REPLICA_OF: Record<GatewayName, 'a' | 'b'> = {
  'fleet-1': 'a',
  'fleet-2': 'a',
  'fleet-3': 'b',
};
const ROUNDS_BEFORE_KILL = 12;
const ROUNDS_AFTER_KILL = 12;

const processes = new Processes({ handleSignals: false });
let database: TestDatabase;
let dataDir: string;
let operator: ApiClient;
let operatorToken: string;
let agentToken: string;
let mockUrl: string;
const apiPorts = { a: 0, b: 0 };
const apis: Partial<Record<'a' | 'b', Started>> = {};
const gatewayUrls = {} as Record<GatewayName, string>;
const sent = new Map<GatewayName, Set<string>>(GATEWAYS.map((name) => [name, new Set()]));

const apiUrl = (replica: 'a' | 'b') => `http://${HOST}:${apiPorts[replica]}`;

function startApi(replica: 'a' | 'b'): Promise<Started> {
  return processes.start({
    name: `api-${replica}`,
    command: process.execPath,
    args: ['--import', 'tsx', 'apps/api/src/main.ts'],
    env: {
      HOST,
      PORT: String(apiPorts[replica]),
      DATABASE_URL: database.url,
      DATA_DIR: join(dataDir, `api-${replica}`),
      LOG_LEVEL: 'warn',
    },
    readyUrl: `${apiUrl(replica)}/readyz`,
    timeoutMs: 120_000,
  });
}

const tool = (name: string) => ({
  type: 'function' as const,
  function: { name, parameters: { type: 'object' as const, properties: {} } },
});

/** One request through a gateway with the official SDK; returns the tools the provider saw. */
async function ask(gateway: GatewayName): Promise<string[]> {
  const client = new OpenAI({
    baseURL: `${gatewayUrls[gateway]}/v1`,
    apiKey: agentToken,
    maxRetries: 0,
  });
  const { data, response } = await client.chat.completions
    .create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'list the tools' }],
      tools: [tool('search'), tool('delete_repo'), tool('merge_pull_request')],
    })
    .withResponse();
  const receipt = response.headers.get('x-toolgate-receipt-id');
  expect(receipt).toMatch(/^rcpt_/);
  sent.get(gateway)?.add(receipt as string);
  // The mock answers "mock: N tools: a, b" with the tools it was offered.
  const content = data.choices[0]?.message.content ?? '';
  return (content.split(': ')[2] ?? '').split(', ').filter(Boolean);
}

async function appliedETags(): Promise<Record<GatewayName, string | undefined>> {
  const out = {} as Record<GatewayName, string | undefined>;
  for (const name of GATEWAYS) {
    const gateway = await operator.call('gateways.get', { params: { name } });
    out[name] = gateway.status?.appliedBundleETag;
  }
  return out;
}

async function storedReceipts(gateway: GatewayName): Promise<string[]> {
  const ids: string[] = [];
  let next: string | undefined;
  do {
    const page = await operator.call('receipts.list', {
      query: { gateway, limit: 500, ...(next ? { continue: next } : {}) },
    });
    ids.push(...page.items.map((item) => item.id));
    next = page.metadata.continue;
  } while (next);
  return ids;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'toolgate-fleet-'));
  database = await createTestDatabase(inject('databaseAdminUrl'), { migrate: false });
  const [a, b, mockPort, ...gatewayPorts] = await Promise.all([
    findFreePort(),
    findFreePort(),
    findFreePort(),
    ...GATEWAYS.map(() => findFreePort()),
  ]);
  apiPorts.a = a;
  apiPorts.b = b;
  mockUrl = `http://${HOST}:${mockPort}`;
  const mock = processes.start({
    name: 'mock',
    command: process.execPath,
    args: ['--import', 'tsx', 'apps/mock-provider/src/main.ts'],
    env: { HOST, PORT: String(mockPort), LOG_LEVEL: 'warn' },
    readyUrl: `${mockUrl}/healthz`,
  });
  // Replica A migrates the database and prints the first operator token; B starts on it after.
  apis.a = await startApi('a');
  operatorToken = /\b(tg_[A-Za-z0-9_-]{43})\b/.exec(apis.a.output())?.[1] as string;
  expect(operatorToken).toBeDefined();
  apis.b = await startApi('b');
  await mock;
  operator = createClient({ baseUrl: apiUrl('a'), token: operatorToken });

  await operator.call('identities.create', {
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'Identity',
      metadata: { name: 'fleet-agent' },
      spec: { type: 'service', roles: ['agent'] },
    },
  });
  agentToken = (
    await operator.call('tokens.issueToken', { params: { name: 'fleet-agent' }, body: {} })
  ).token;
  await operator.call('mediationPolicies.create', {
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'MediationPolicy',
      metadata: { name: 'fleet-base' },
      spec: {
        selector: { matchLabels: { fleet: 'e2e' } },
        rules: [{ id: 'hide-deletes', action: 'hide', match: { name: 'delete_*' } }],
      },
    },
  });
  await Promise.all(
    GATEWAYS.map(async (name, i) => {
      await operator.call('identities.create', {
        body: {
          apiVersion: 'toolgate.dev/v1',
          kind: 'Identity',
          metadata: { name: `${name}-gw` },
          spec: { type: 'service', roles: ['gateway'] },
        },
      });
      await operator.call('gateways.create', {
        body: {
          apiVersion: 'toolgate.dev/v1',
          kind: 'Gateway',
          metadata: { name, labels: { fleet: 'e2e' } },
          spec: { identity: `${name}-gw` },
        },
      });
      const { token } = await operator.call('tokens.issueToken', {
        params: { name: `${name}-gw` },
        body: {},
      });
      const port = gatewayPorts[i] as number;
      gatewayUrls[name] = `http://${HOST}:${port}`;
      await processes.start({
        name,
        command: process.execPath,
        args: ['--import', 'tsx', 'apps/gateway/src/main.ts'],
        env: {
          HOST,
          PORT: String(port),
          GATEWAY_NAME: name,
          API_URL: apiUrl(REPLICA_OF[name]),
          API_TOKEN: token,
          OPENAI_BASE_URL: mockUrl,
          ANTHROPIC_BASE_URL: mockUrl,
          GEMINI_BASE_URL: mockUrl,
          DATA_DIR: join(dataDir, name),
          SHIP_INTERVAL_MS: '50',
          SHIP_BATCH_SIZE: '4',
          LOG_LEVEL: 'warn',
        },
        readyUrl: `${gatewayUrls[name]}/readyz`,
        timeoutMs: 60_000,
      });
    }),
  );
});

afterAll(async () => {
  await processes.stopAll(10_000);
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('two API replicas, three gateways, one PostgreSQL', () => {
  it('an apply on replica A reaches the gateway that syncs from replica B', async () => {
    for (const name of GATEWAYS) expect(await ask(name)).not.toContain('delete_repo');
    const before = await appliedETags();

    // Through replica A only; fleet-3 long-polls replica B.
    await operator.call('mediationPolicies.create', {
      body: {
        apiVersion: 'toolgate.dev/v1',
        kind: 'MediationPolicy',
        metadata: { name: 'fleet-merge' },
        spec: {
          selector: { matchLabels: { fleet: 'e2e' } },
          rules: [{ id: 'hide-merges', action: 'hide', match: { name: 'merge_*' } }],
        },
      },
    });
    let after: Record<GatewayName, string | undefined> = before;
    await until(async () => {
      after = await appliedETags();
      return GATEWAYS.every((name) => after[name] !== undefined && after[name] !== before[name]);
    }, 30_000);
    // Each runs the bundle the API would serve it now, as both replicas see it.
    for (const replica of ['a', 'b'] as const) {
      const view = createClient({ baseUrl: apiUrl(replica), token: operatorToken });
      const { items } = await view.call('gatewaySync.list', {});
      for (const name of GATEWAYS) {
        const entry = items.find((item) => item.name === name);
        expect(entry, `${name} via replica ${replica}`).toMatchObject({
          state: 'in_sync',
          appliedBundleETag: after[name],
          desiredBundleETag: after[name],
        });
      }
    }
    for (const name of GATEWAYS) {
      const offered = await ask(name);
      expect(offered).toContain('search');
      expect(offered).not.toContain('merge_pull_request');
    }
  });

  it('loses and duplicates no receipt when replica B is killed while its gateway ships', async () => {
    const traffic = async (rounds: number) => {
      for (let round = 0; round < rounds; round++) {
        await Promise.all(GATEWAYS.map((name) => ask(name)));
      }
    };
    await traffic(ROUNDS_BEFORE_KILL);
    // fleet-3 was shipping through replica B before the kill.
    expect((await storedReceipts('fleet-3')).length).toBeGreaterThan(0);
    // Mid-ingest: fleet-3 ships a batch of 4 every 50 ms while it keeps serving.
    const busy = traffic(ROUNDS_AFTER_KILL);
    const b = apis.b as Started;
    process.kill(-b.pid, 'SIGKILL');
    await b.exited;
    // The gateway keeps enforcing and spooling while its API is gone.
    await busy;
    const whileDown = (await storedReceipts('fleet-3')).length;
    expect(whileDown, 'receipts waiting in the spool').toBeLessThan(sent.get('fleet-3')?.size ?? 0);
    apis.b = await startApi('b');

    for (const name of GATEWAYS) {
      const expected = sent.get(name) as Set<string>;
      let stored: string[] = [];
      await until(async () => {
        stored = await storedReceipts(name);
        return stored.length >= expected.size;
      }, 60_000);
      expect(stored.length, `${name}: no receipt stored twice`).toBe(new Set(stored).size);
      expect(new Set(stored), `${name}: every receipt the agent was given is stored`).toEqual(
        expected,
      );
      // Verified through replica B (the one that was killed): the chain is intact and complete.
      const viaB = createClient({ baseUrl: apiUrl('b'), token: operatorToken });
      const verified = await viaB.call('receipts.verify', { params: { name }, query: {} });
      expect(verified).toMatchObject({ gateway: name, valid: true, checked: expected.size });
    }
  });
});
