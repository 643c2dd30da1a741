import { readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { findFreePort, postgresScratchDir } from '@toolgate/db';
import type { LatencyResult } from './gateway/phases.ts';
import { Processes, type Started } from './gateway/processes.ts';
import { receiptCounters } from './gateway/spool-metrics.ts';
import { startBareProxy, type ToolgateStack } from './gateway/toolgate-stack.ts';
import {
  closedLoop,
  closeSessions,
  interleavedEcho,
  type McpTarget,
  openSdkSession,
  openSession,
  openSessions,
  type Session,
  timedEcho,
} from './mcp/load.ts';
import { measureLatency, measureThroughput } from './mcp/phases.ts';
import {
  BARE_HOP,
  BASELINE,
  CONCURRENCY,
  DIRECT,
  LATENCY_ITERATIONS,
  LATENCY_ROUNDS,
  MCP_PROXY,
  THROUGHPUT_MS,
  THROUGHPUT_ROUNDS,
  TOOLGATE,
  WARMUP_CALLS,
  WARMUP_MS,
} from './mcp/plan.ts';
import { mcpReport } from './mcp/report.ts';
import { startToolgateForMcp } from './mcp/toolgate.ts';
import type { BenchResult } from './measure.ts';

/**
 * The MCP benchmark (`pnpm bench mcp`): `tools/call` of the demo MCP server's echo tool (its own
 * process), directly, through mcp-proxy (npm) and through Toolgate's `/mcp/<server>`, each
 * client an SDK Client with an initialized session, all in this one run. Reports added p50/p99
 * at concurrency 1 and calls/s at concurrency 32 (bench/mcp/README in bench/gateway/README.md's
 * style: docs/mcp.md).
 */
export async function runMcpBench(): Promise<BenchResult> {
  const progress = (line: string) => process.stdout.write(`  … ${line}\n`);
  const processes = new Processes();
  const dataDir = await postgresScratchDir('toolgate-bench-mcp-');
  try {
    progress('starting the demo MCP server (own process)');
    const { url: mcpUrl, server } = await startDemoMcp(processes);
    const targets: McpTarget[] = [{ name: DIRECT, url: mcpUrl, headers: {}, pgids: [server.pid] }];

    const mcpProxyVersion = await packageVersion('mcp-proxy');
    progress(`starting mcp-proxy ${mcpProxyVersion} in front of it`);
    const proxyPort = await findFreePort();
    const proxy = await processes.start({
      name: MCP_PROXY,
      command: process.execPath,
      args: ['--import', 'tsx', 'bench/mcp/mcp-proxy-server.ts'],
      env: { UPSTREAM_URL: mcpUrl, PORT: String(proxyPort) },
      readyUrl: `http://127.0.0.1:${proxyPort}/ping`,
    });
    targets.push({
      name: MCP_PROXY,
      url: `http://127.0.0.1:${proxyPort}/mcp`,
      headers: {},
      pgids: [proxy.pid],
    });

    progress(
      'starting the bare hop in front of it (node:http in, undici Pool out, nothing parsed)',
    );
    const { url: bareUrl, bare } = await startBareProxy(processes, new URL(mcpUrl).origin);
    targets.push({ name: BARE_HOP, url: `${bareUrl}/mcp`, headers: {}, pgids: [bare.pid] });

    let toolgate: ToolgateStack | undefined;
    let toolgateError: string | undefined;
    try {
      const started = await startToolgateForMcp(processes, { mcpUrl, dataDir, progress });
      toolgate = started.stack;
      targets.push(started.target);
      if (started.baseline) targets.push(started.baseline);
    } catch (error) {
      toolgateError = (error as Error).message;
      process.stdout.write(`  toolgate: not runnable: ${toolgateError}\n`);
    }

    progress('checking every target reaches the demo MCP server with the call');
    for (const target of [...targets]) {
      try {
        await checkReachesServer(mcpUrl, target);
      } catch (error) {
        if (target.name !== TOOLGATE && target.name !== BASELINE) throw error;
        toolgateError = (error as Error).message;
        process.stdout.write(`  toolgate: not runnable: ${toolgateError}\n`);
        targets.splice(targets.indexOf(target), 1);
      }
    }

    const sessions: Session[] = [];
    let latency: Map<string, LatencyResult>;
    let blocks: Map<string, LatencyResult>;
    try {
      for (const target of targets) sessions.push(await openSession(target));
      progress(
        `warm-up: ${WARMUP_CALLS} calls per target at concurrency 1, ${WARMUP_MS / 1000} s per target at ${CONCURRENCY}`,
      );
      await interleavedEcho(targets, sessions, WARMUP_CALLS);
      for (const target of targets) {
        const pool = await openSessions(target, CONCURRENCY);
        await closedLoop(pool, WARMUP_MS);
        await closeSessions(pool);
        await target.afterBlock?.();
      }
      const rounds = { rounds: LATENCY_ROUNDS, iterations: LATENCY_ITERATIONS };
      latency = await measureLatency(
        targets,
        sessions,
        { ...rounds, order: 'interleaved' },
        progress,
      );
      blocks = await measureLatency(targets, sessions, { ...rounds, order: 'blocks' }, progress);
    } finally {
      await closeSessions(sessions);
    }
    const { results: throughput, clientCpuUs } = await measureThroughput(
      targets,
      { rounds: THROUGHPUT_ROUNDS, durationMs: THROUGHPUT_MS, concurrency: CONCURRENCY },
      progress,
    );
    const receipts = toolgate
      ? await receiptCounters(toolgate.url, 'toolgate_gateway_mcp_requests_total')
      : undefined;
    return mcpReport({
      latency,
      blocks,
      throughput,
      clientCpuUs,
      sdkVersion: await packageVersion('@modelcontextprotocol/sdk'),
      mcpProxyVersion,
      toolgateError,
      receipts,
    });
  } finally {
    progress('stopping every child process');
    await processes.stopAll();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The demo MCP server (`apps/mock-mcp`) as its own process: the upstream every target uses. */
export async function startDemoMcp(
  processes: Processes,
): Promise<{ url: string; server: Started }> {
  const port = await findFreePort();
  const origin = `http://127.0.0.1:${port}`;
  const server = await processes.start({
    name: 'mock-mcp',
    command: process.execPath,
    args: ['--import', 'tsx', 'apps/mock-mcp/src/main.ts'],
    env: { HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' },
    readyUrl: `${origin}/healthz`,
  });
  return { url: `${origin}/mcp`, server };
}

/** One session and one call through `target`: the echo comes back, and the server logged it. */
async function checkReachesServer(mcpUrl: string, target: McpTarget) {
  const calls = `${new URL(mcpUrl).origin}/__mock/calls`;
  const total = async () => ((await (await fetch(calls)).json()) as { total: number }).total;
  const before = await total();
  const session = await openSdkSession(target);
  try {
    await timedEcho(session).catch((error: Error) => {
      throw new Error(`${target.name}: ${error.message}`);
    });
  } finally {
    await closeSessions([session]);
  }
  if ((await total()) !== before + 1) {
    throw new Error(`${target.name}: the call did not reach the demo MCP server exactly once`);
  }
}

/** An installed package's version (found above its resolved file: some export no package.json). */
async function packageVersion(name: string): Promise<string> {
  let dir = dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
  for (;;) {
    const manifest = JSON.parse(
      await readFile(join(dir, 'package.json'), 'utf8').catch(() => '{}'),
    );
    if (manifest.name === name) return manifest.version as string;
    if (dirname(dir) === dir) throw new Error(`no package.json of ${name}`);
    dir = dirname(dir);
  }
}
