import { join } from 'node:path';
import { createClient } from '@toolgate/contract';
import { API_VERSION } from '@toolgate/core';
import { findFreePort } from '@toolgate/db';
import { buildGateway, DIST_MAIN } from '../../apps/gateway/scripts/build.ts';
import { TEN_RULES } from '../core-mediation.ts';
import type { Processes, Started } from './processes.ts';

const GATEWAY = 'bench-gateway';

export interface ToolgateStack {
  /** The gateway's origin (agents' OpenAI baseURL is this + `/v1`). */
  url: string;
  gateway: Started;
  api: Started;
  apiUrl: string;
  /** The first operator's token, as the API printed it. */
  operatorToken: string;
  variant(
    name: string,
    env: Record<string, string>,
    dist?: string,
    nodeArgs?: string[],
  ): Promise<{ url: string; gateway: Started }>;
}

/** The mock provider (`apps/mock-provider`) as its own process: the upstream every target uses. */
export async function startMockProvider(
  processes: Processes,
): Promise<{ url: string; mock: Started }> {
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const mock = await processes.start({
    name: 'mock',
    command: process.execPath,
    args: ['--import', 'tsx', 'apps/mock-provider/src/main.ts'],
    env: { HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' },
    readyUrl: `${url}/healthz`,
  });
  return { url, mock };
}

/** The bare pass-through proxy (`bare-proxy.mjs`, plain node) as its own process, in front of `mockUrl`. */
export async function startBareProxy(
  processes: Processes,
  mockUrl: string,
  name = 'bare proxy',
): Promise<{ url: string; bare: Started }> {
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const bare = await processes.start({
    name,
    command: process.execPath,
    args: ['bench/gateway/bare-proxy.mjs'],
    env: { UPSTREAM_URL: mockUrl, PORT: String(port) },
    readyUrl: `${url}/healthz`,
  });
  return { url, bare };
}

/**
 * The static mock (`static-mock.mjs`, plain node) as its own process: drains each request without
 * parsing it and answers `reply` (a Chat Completions JSON text).
 */
export async function startStaticMock(
  processes: Processes,
  reply: string,
): Promise<{ url: string; mock: Started }> {
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const mock = await processes.start({
    name: 'static mock',
    command: process.execPath,
    args: ['bench/gateway/static-mock.mjs'],
    env: { PORT: String(port), STATIC_REPLY: reply },
    readyUrl: `${url}/healthz`,
  });
  return { url, mock };
}

/**
 * The real thing, as processes: the API (embedded PostgreSQL under `dataDir`), provisioned
 * through its typed client with a gateway Identity, a labelled Gateway, a MediationPolicy with
 * the ten rules selecting it and a token; then the gateway, pointed at the mock, ready once its
 * `/readyz` says it holds the bundle. Receipts are on: spooled with fsync and shipped to the API.
 * The gateway runs as deployed: the production build (`apps/gateway/scripts/build.ts`).
 */
export async function startToolgate(
  processes: Processes,
  options: {
    mockUrl: string;
    dataDir: string;
    progress: (line: string) => void;
    /** Extra gateway environment (a variant: another spool or shipping setting). */
    gatewayEnv?: Record<string, string>;
    /** Extra Node flags for the gateway process (e.g. `--cpu-prof` when profiling). */
    gatewayNodeArgs?: string[];
    /** Extra API environment (e.g. DATABASE_URL instead of the embedded PostgreSQL). */
    apiEnv?: Record<string, string>;
    /**
     * CPU niceness of the API and its PostgreSQL. The bench runs them at 19: in a deployment
     * they are on other machines, and here they would otherwise take CPU from the processes
     * being measured while they ingest receipts.
     */
    apiNiceness?: number;
    /**
     * More provisioning through the API before the gateway starts, so its first bundle holds it
     * (the MCP bench registers its McpServer and an agent token here).
     */
    beforeGateway?: (api: { apiUrl: string; operatorToken: string }) => Promise<void>;
  },
): Promise<ToolgateStack> {
  const { progress } = options;
  progress('starting the Toolgate API (embedded PostgreSQL)');
  const apiPort = await findFreePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const api = await processes.start({
    name: 'api',
    command: process.execPath,
    args: ['--import', 'tsx', 'apps/api/src/main.ts'],
    env: {
      HOST: '127.0.0.1',
      PORT: String(apiPort),
      DATA_DIR: join(options.dataDir, 'api'),
      LOG_LEVEL: 'warn',
      ...options.apiEnv,
    },
    readyUrl: `${apiUrl}/readyz`,
    timeoutMs: 90_000,
    ...(options.apiNiceness !== undefined ? { niceness: options.apiNiceness } : {}),
  });
  const operatorToken = /\b(tg_[A-Za-z0-9_-]+)/.exec(api.output())?.[1];
  if (!operatorToken) throw new Error('the API printed no operator token');

  progress('provisioning: Identity, Gateway, MediationPolicy (10 rules), gateway token');
  const operator = createClient({ baseUrl: apiUrl, token: operatorToken });
  const labels = { bench: 'gateway' };
  await operator.call('identities.create', {
    body: {
      apiVersion: API_VERSION,
      kind: 'Identity',
      metadata: { name: GATEWAY },
      spec: { type: 'service', roles: ['gateway'] },
    },
  });
  await operator.call('gateways.create', {
    body: {
      apiVersion: API_VERSION,
      kind: 'Gateway',
      metadata: { name: GATEWAY, labels },
      spec: { identity: GATEWAY },
    },
  });
  await operator.call('mediationPolicies.create', {
    body: {
      apiVersion: API_VERSION,
      kind: 'MediationPolicy',
      metadata: { name: 'bench-ten-rules' },
      spec: { selector: { matchLabels: labels }, rules: TEN_RULES },
    },
  });
  const { token } = await operator.call('tokens.issueToken', {
    params: { name: GATEWAY },
    body: { description: 'pnpm bench gateway' },
  });

  await options.beforeGateway?.({ apiUrl, operatorToken });

  // The gateway as deployed (apps/gateway/Dockerfile): bundled, run by plain node.
  progress('building the gateway (apps/gateway/dist/main.mjs)');
  await buildGateway();
  progress('starting the Toolgate gateway');
  const gatewayProcess = { processes, apiUrl, token, mockUrl: options.mockUrl };
  const gateway = await startGateway(gatewayProcess, {
    dataDir: join(options.dataDir, 'gateway'),
    ...(options.gatewayEnv ? { env: options.gatewayEnv } : {}),
    ...(options.gatewayNodeArgs ? { nodeArgs: options.gatewayNodeArgs } : {}),
  });
  return {
    ...gateway,
    api,
    apiUrl,
    operatorToken,
    /** Another gateway process on the same API and token (a variant, e.g. receipts off). */
    variant: (name: string, env: Record<string, string>, dist?: string, nodeArgs?: string[]) =>
      startGateway(gatewayProcess, {
        name,
        dataDir: join(options.dataDir, name),
        env,
        ...(dist ? { dist } : {}),
        ...(nodeArgs ? { nodeArgs } : {}),
      }),
  };
}

async function startGateway(
  stack: { processes: Processes; apiUrl: string; token: string; mockUrl: string },
  options: {
    name?: string;
    dataDir: string;
    env?: Record<string, string>;
    nodeArgs?: string[];
    /** Another build of the gateway (comparing two builds in one run); DIST_MAIN by default. */
    dist?: string;
  },
): Promise<{ url: string; gateway: Started }> {
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const gateway = await stack.processes.start({
    name: options.name ?? 'gateway',
    command: process.execPath,
    args: [...(options.nodeArgs ?? []), '--enable-source-maps', options.dist ?? DIST_MAIN],
    env: {
      HOST: '127.0.0.1',
      PORT: String(port),
      GATEWAY_NAME: GATEWAY,
      API_URL: stack.apiUrl,
      API_TOKEN: stack.token,
      OPENAI_BASE_URL: stack.mockUrl,
      DATA_DIR: options.dataDir,
      LOG_LEVEL: 'warn',
      ...options.env,
    },
    readyUrl: `${url}/readyz`,
    timeoutMs: 30_000,
  });
  return { url, gateway };
}
