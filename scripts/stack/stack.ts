import { join, resolve } from 'node:path';
import { type ApiClient, createClient } from '@toolgate/contract';
import { Processes, REPO_ROOT, type Started } from '../../bench/gateway/processes.ts';
import { applyDemoSeed, ensureToken } from './demo-seed.ts';
import { readStackState, type StackState, writeStackState } from './stack-state.ts';

export const DEMO_SEED = join(REPO_ROOT, 'demo', 'seed.yaml');
/** The gateway `pnpm start` runs (the seed registers it, with edge-prod beside it). */
export const STACK_GATEWAY = { name: 'edge-dev', identity: 'edge-dev-gateway' } as const;
export const DEMO_AGENT = 'demo-agent';

export interface StackOptions {
  dataDir: string;
  host: string;
  ports: { api: number; gateway: number; console: number; mock: number; mcp: number };
  databaseUrl?: string;
  /** Operator token to use when the state file has none (an API whose data predates it). */
  operatorToken?: string;
  /** Every line a service prints. */
  onLine?: (service: string, line: string) => void;
  /** What the launcher itself is doing. */
  progress: (line: string) => void;
  /** False when the caller stops the stack itself on Ctrl-C. */
  handleSignals?: boolean;
  /** Extra environment per service (tests: faster shipping, quieter logs). */
  env?: Partial<Record<'api' | 'gateway' | 'console' | 'mock' | 'mcp', Record<string, string>>>;
}

export interface Stack {
  /** `mcp` is the demo MCP server's endpoint (agents reach it through `<gateway>/mcp/demo`). */
  urls: { api: string; gateway: string; console: string; mock: string; mcp: string };
  operatorToken: string;
  /** The demo agent's Toolgate token (its SDK key through the gateway). */
  agentToken: string;
  operator: ApiClient;
  services: Record<'api' | 'gateway' | 'console' | 'mock' | 'mcp', Started>;
  stop(): Promise<void>;
}

/**
 * The whole of Toolgate as separate processes, as `pnpm start` runs it: the demo upstream and
 * the demo MCP server, the API (embedded PostgreSQL under `<data>/api` unless DATABASE_URL), the console, the demo seed,
 * and one gateway with its own token. Data and tokens are reused on the next start.
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const dataDir = resolve(options.dataDir);
  const { host, ports, progress } = options;
  const url = (port: number) => `http://${host}:${port}`;
  const urls = {
    api: url(ports.api),
    gateway: url(ports.gateway),
    console: url(ports.console),
    mock: url(ports.mock),
    mcp: `${url(ports.mcp)}/mcp`,
  };
  const processes = new Processes({ handleSignals: options.handleSignals ?? true });
  const node = (entry: string) => ({
    command: process.execPath,
    args: ['--import', 'tsx', entry],
  });
  const start = (
    name: keyof Stack['services'],
    entry: string,
    env: Record<string, string>,
    readyUrl: string,
    timeoutMs: number,
  ) =>
    processes.start({
      name,
      ...node(entry),
      env: { ...env, ...options.env?.[name] },
      readyUrl,
      timeoutMs,
      onLine: (line) => options.onLine?.(name, line),
    });

  try {
    progress(
      'starting the demo upstream, the demo MCP server, the API (PostgreSQL, migrations) and the console',
    );
    const [mock, mcp, api, consoleServer] = await Promise.all([
      start(
        'mock',
        'apps/mock-provider/src/main.ts',
        { HOST: host, PORT: String(ports.mock), LOG_LEVEL: 'info' },
        `${urls.mock}/healthz`,
        30_000,
      ),
      start(
        'mcp',
        'apps/mock-mcp/src/main.ts',
        { HOST: host, PORT: String(ports.mcp), LOG_LEVEL: 'info' },
        `${url(ports.mcp)}/healthz`,
        30_000,
      ),
      start(
        'api',
        'apps/api/src/main.ts',
        {
          HOST: host,
          PORT: String(ports.api),
          DATA_DIR: join(dataDir, 'api'),
          LOG_LEVEL: 'info',
          ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
        },
        `${urls.api}/readyz`,
        180_000,
      ),
      // Builds the console first when dist/ is missing or stale (progress in its log).
      start(
        'console',
        'apps/console/server/start.ts',
        { CONSOLE_HOST: host, CONSOLE_PORT: String(ports.console), API_URL: urls.api },
        `${urls.console}/`,
        300_000,
      ),
    ]);

    const state = await readStackState(dataDir);
    const printed = /\b(tg_[A-Za-z0-9_-]{43})\b/.exec(api.output())?.[1];
    const operatorToken = printed ?? state.operatorToken ?? options.operatorToken;
    if (!operatorToken) {
      throw new Error(
        `no operator token: the API under ${join(dataDir, 'api')} printed its first token on an earlier start ` +
          'and it was not kept. Pass it as TOOLGATE_TOKEN, or delete that directory to start afresh.',
      );
    }
    const operator = createClient({ baseUrl: urls.api, token: operatorToken });
    const works = async (token: string) =>
      (await createClient({ baseUrl: urls.api, token }).raw('tokens.whoami')).ok;
    if (!(await works(operatorToken))) {
      throw new Error('the operator token is not accepted by the API (revoked or expired?)');
    }

    progress(`applying the demo seed (${DEMO_SEED}) where it is missing`);
    const created = await applyDemoSeed(
      { client: operator, baseUrl: urls.api, token: operatorToken },
      DEMO_SEED,
      { demoMcpUrl: urls.mcp },
    );
    progress(created.length > 0 ? `created ${created.join(', ')}` : 'demo seed already in place');
    const next: StackState = {
      ...state,
      operatorToken,
      gatewayToken: await ensureToken(
        operator,
        STACK_GATEWAY.identity,
        state.gatewayToken,
        works,
        'pnpm start: the edge-dev gateway',
      ),
      agentToken: await ensureToken(
        operator,
        DEMO_AGENT,
        state.agentToken,
        works,
        'pnpm start: the demo agent',
      ),
      urls,
    };
    await writeStackState(dataDir, next);

    progress(`starting the gateway "${STACK_GATEWAY.name}"`);
    const gateway = await start(
      'gateway',
      'apps/gateway/src/main.ts',
      {
        HOST: host,
        PORT: String(ports.gateway),
        GATEWAY_NAME: STACK_GATEWAY.name,
        API_URL: urls.api,
        API_TOKEN: next.gatewayToken as string,
        OPENAI_BASE_URL: urls.mock,
        ANTHROPIC_BASE_URL: urls.mock,
        GEMINI_BASE_URL: urls.mock,
        DATA_DIR: join(dataDir, 'gateway'),
        LOG_LEVEL: 'info',
      },
      `${urls.gateway}/readyz`,
      60_000,
    );
    return {
      urls,
      operatorToken,
      agentToken: next.agentToken as string,
      operator,
      services: { mock, mcp, api, console: consoleServer, gateway },
      // The gateway first, while the API can still take its last receipts and status.
      stop: async () => {
        await processes.stop(gateway, 20_000);
        await processes.stopAll(20_000);
      },
    };
  } catch (error) {
    await processes.stopAll(20_000);
    throw error;
  }
}
