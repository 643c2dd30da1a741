import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { until } from '@toolgate/core/testing';
import { findFreePort } from '@toolgate/db';

/**
 * The gateway as a real OS process (`node --import tsx apps/gateway/src/main.ts`), in its own
 * process group so a test can `kill -9` it (and anything it started) and never leave an orphan.
 * Test support for the fault-injection tests.
 */

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const MAIN = 'apps/gateway/src/main.ts';
const OUTPUT_LIMIT = 64 * 1024;

export interface GatewayProcessOptions {
  name: string;
  apiUrl: string;
  apiToken: string;
  upstreamUrl: string;
  dataDir: string;
  /** Default: a free port. Pass the previous one to restart on the same address. */
  port?: number;
  /** Anything else (UPSTREAM_TIMEOUT_MS, OPENAI_BASE_URL, …); wins over the defaults. */
  env?: Record<string, string>;
  /** Appends everything the process prints (stdout and stderr, in full) to this file. */
  logFile?: string;
}

export interface GatewayProcess {
  url: string;
  port: number;
  pid: number;
  options: GatewayProcessOptions;
  /** Resolves with the exit code (or signal) once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** stdout + stderr so far (the last 64 KiB): failure messages quote it. */
  output(): string;
  /** Signals the whole process group and waits for the process to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

const running = new Set<GatewayProcess>();

/** Spawns a gateway and waits until `/readyz` answers 200 (a valid bundle is active). */
export async function startGateway(options: GatewayProcessOptions): Promise<GatewayProcess> {
  const gateway = await spawnGateway(options);
  try {
    await waitReady(gateway);
  } catch (error) {
    await gateway.kill('SIGKILL');
    throw error;
  }
  return gateway;
}

/** Spawns a gateway and waits until it listens (ready or not). */
export async function spawnGateway(options: GatewayProcessOptions): Promise<GatewayProcess> {
  const port = options.port ?? (await findFreePort());
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    cwd: ROOT,
    detached: true, // its own process group: kill(-pid) reaches everything it started
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
      GATEWAY_NAME: options.name,
      API_URL: options.apiUrl,
      API_TOKEN: options.apiToken,
      OPENAI_BASE_URL: options.upstreamUrl,
      ANTHROPIC_BASE_URL: options.upstreamUrl,
      GEMINI_BASE_URL: options.upstreamUrl,
      DATA_DIR: options.dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      SHIP_INTERVAL_MS: '100',
      SYNC_WAIT_SECONDS: '5',
      ...options.env,
    },
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
    if (options.logFile) appendFileSync(options.logFile, chunk);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = exitOf(child);
  const pid = child.pid as number;
  const gateway: GatewayProcess = {
    url: `http://127.0.0.1:${port}`,
    port,
    pid,
    options: { ...options, port },
    exited,
    output: () => output,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-pid, signal);
        } catch {
          // already gone
        }
      }
      await exited;
      // Whatever the group leader left behind goes too (a no-op when nothing is left).
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // the group is empty
      }
    },
  };
  running.add(gateway);
  void exited.then(() => running.delete(gateway));
  await until(
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`gateway ${options.name} exited at start:\n${output}`);
      }
      return (await probe(`${gateway.url}/healthz`)) === 200;
    },
    20_000,
    () => `gateway ${options.name} listening on ${gateway.url}\n${output}`,
  );
  return gateway;
}

/** Waits until `/readyz` answers 200. */
export async function waitReady(gateway: GatewayProcess, timeoutMs = 20_000): Promise<void> {
  await until(
    async () => (await probe(`${gateway.url}/readyz`)) === 200,
    timeoutMs,
    () => `gateway ${gateway.options.name} ready\n${gateway.output()}`,
  );
}

/** The same gateway again: same name, data dir, port and environment. */
export function restartGateway(previous: GatewayProcess): Promise<GatewayProcess> {
  return startGateway(previous.options);
}

/** SIGKILLs every gateway process group still running (afterAll, and at exit as a last resort). */
export async function killAllGateways(): Promise<void> {
  await Promise.all([...running].map((gateway) => gateway.kill('SIGKILL')));
}

process.once('exit', () => {
  for (const gateway of running) {
    try {
      process.kill(-gateway.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

async function probe(url: string): Promise<number | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await response.body?.cancel();
    return response.status;
  } catch {
    return undefined;
  }
}

function exitOf(child: ChildProcess) {
  return once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
}
