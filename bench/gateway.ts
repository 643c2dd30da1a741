import { readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { mediateRequest } from '@toolgate/core';
import { findFreePort, postgresScratchDir } from '@toolgate/db';
import { Client } from 'undici';
import { fiftyToolRequest, TEN_RULES, tenRuleBundle } from './core-mediation.ts';
import {
  type CallTimeTargets,
  measureApprovalPropagation,
  measureCallTimeLatency,
  type PropagationResult,
  provision,
  startCallTimeGateways,
} from './gateway/call-time.ts';
import { floorOnlyReport, floorPhase } from './gateway/floor.ts';
import { fdatasyncFloor } from './gateway/fsync-floor.ts';
import {
  closedLoop,
  interleavedLatency,
  loadPool,
  post,
  type Target,
  timeToFirstToken,
} from './gateway/load.ts';
import {
  type LatencyResult,
  type Measured,
  measureLatency,
  measureThroughput,
  measureTtft,
} from './gateway/phases.ts';
import {
  CONCURRENCY,
  FSYNC_PER_REQUEST,
  LATENCY_ITERATIONS,
  LATENCY_ROUNDS,
  NO_RECEIPTS,
  THROUGHPUT_MS,
  THROUGHPUT_ROUNDS,
  TTFT_ITERATIONS,
  TTFT_ROUNDS,
  TTFT_SCRIPT,
} from './gateway/plan.ts';
import { Processes, REPO_ROOT } from './gateway/processes.ts';
import { report } from './gateway/report.ts';
import {
  measureSurfaces,
  RESPONSES_PATH,
  responsesRequestOf,
  type SurfaceLatency,
} from './gateway/responses.ts';
import { drainSpool, receiptCounters } from './gateway/spool-metrics.ts';
import {
  startBareProxy,
  startMockProvider,
  startToolgate,
  type ToolgateStack,
} from './gateway/toolgate-stack.ts';
import type { BenchResult } from './measure.ts';

/**
 * `request` streamed, with the mock scripted (through the last user message, which every proxy
 * passes on) to answer with TTFT_SCRIPT.
 */
export function streamedRequestBody(request: Record<string, unknown>): string {
  return JSON.stringify({
    ...request,
    stream: true,
    messages: [
      ...(request.messages as unknown[]).slice(0, -1),
      { role: 'user', content: `mock: ${JSON.stringify(TTFT_SCRIPT)}` },
    ],
  });
}

/** The targets that mediate (the mock sees the ten rules' result, not 50 tools). */
const TOOLGATE_TARGETS = new Set(['toolgate', NO_RECEIPTS, FSYNC_PER_REQUEST]);

/** Any key: the mock accepts all, and Toolgate and Portkey pass the agent's key through. */
const AGENT_KEY = 'sk-FAKE-toolgate-bench';

/**
 * The gateway benchmark (`pnpm bench gateway`): the same 50-tool request to the same mock
 * provider (its own process), directly, through a bare undici pass-through proxy, through
 * Portkey's gateway and through Toolgate (10 rules, receipts on). Reports added p50/p99 at
 * concurrency 1, requests/s at concurrency 64 and streamed time to first token.
 */
export async function runGatewayBench(): Promise<BenchResult> {
  // `--cpu-prof`: the static floor's Toolgate runs under `node --cpu-prof`, summarized at the end
  // (the profile stays in .tmp/gateway-cpu-prof/ for DevTools). `--floor-only`: only the floor.
  const cpuProfDir = process.argv.includes('--cpu-prof')
    ? join(REPO_ROOT, '.tmp', 'gateway-cpu-prof')
    : undefined;
  const floorOnly = process.argv.includes('--floor-only');
  const progress = (line: string) => process.stdout.write(`  … ${line}\n`);
  if (floorOnly) return runFloorOnly(cpuProfDir, progress);
  const processes = new Processes();
  const dataDir = await postgresScratchDir('toolgate-bench-gateway-');
  try {
    progress('starting the mock provider (own process)');
    const { url: mockUrl, mock } = await startMockProvider(processes);

    progress('starting the bare undici pass-through proxy');
    const { url: bareUrl, bare } = await startBareProxy(processes, mockUrl);

    const portkeyPackage = createRequire(import.meta.url).resolve(
      '@portkey-ai/gateway/package.json',
    );
    const portkeyVersion = JSON.parse(await readFile(portkeyPackage, 'utf8')).version as string;
    progress(`starting Portkey's gateway ${portkeyVersion}`);
    const portkeyPort = await findFreePort();
    const portkey = await processes.start({
      name: 'portkey',
      command: process.execPath,
      args: [
        join(dirname(portkeyPackage), 'build/start-server.js'),
        `--port=${portkeyPort}`,
        '--headless',
      ],
      readyUrl: `http://127.0.0.1:${portkeyPort}/`,
    });

    const latencyOnly: Measured[] = [];
    let toolgate: ToolgateStack | undefined;
    let toolgateError: string | undefined;
    try {
      toolgate = await startToolgate(processes, { mockUrl, dataDir, progress, apiNiceness: 19 });
    } catch (error) {
      toolgateError = (error as Error).message;
      process.stdout.write(`  toolgate: gateway not runnable: ${toolgateError}\n`);
    }

    const auth = { authorization: `Bearer ${AGENT_KEY}` };
    const targets: Measured[] = [
      { name: 'direct', origin: mockUrl, headers: auth, pgids: [mock.pid] },
      {
        name: 'bare proxy',
        origin: bareUrl,
        headers: auth,
        pgids: [bare.pid],
      },
      {
        name: 'portkey',
        origin: `http://127.0.0.1:${portkeyPort}`,
        headers: {
          ...auth,
          'x-portkey-provider': 'openai',
          'x-portkey-custom-host': `${mockUrl}/v1`,
        },
        pgids: [portkey.pid],
      },
    ];
    if (toolgate) {
      const gatewayUrl = toolgate.url;
      targets.push({
        name: 'toolgate',
        origin: gatewayUrl,
        headers: auth,
        pgids: [toolgate.gateway.pid],
        afterBlock: () => drainSpool(gatewayUrl),
      });
      // The same gateway with receipts off: the difference is what receipts cost.
      progress('starting a second Toolgate gateway with RECEIPTS=off (to measure receipt cost)');
      const off = await toolgate.variant('gateway-no-receipts', { RECEIPTS: 'off' });
      targets.push({
        name: NO_RECEIPTS,
        origin: off.url,
        headers: auth,
        pgids: [off.gateway.pid],
      });
      progress('starting a third Toolgate gateway with SPOOL_FSYNC=request (concurrency 1 only)');
      const own = await provision(toolgate, 'bench-gateway-fsync', TEN_RULES);
      const strict = await toolgate.variant('gateway-fsync-request', {
        SPOOL_FSYNC: 'request',
        GATEWAY_NAME: own.name,
        API_TOKEN: own.token,
      });
      latencyOnly.push({
        name: FSYNC_PER_REQUEST,
        origin: strict.url,
        headers: auth,
        pgids: [strict.gateway.pid],
      });
    }
    const latencyTargets = [...targets, ...latencyOnly];
    let callTime: CallTimeTargets | undefined;
    if (toolgate) callTime = await startCallTimeGateways(toolgate, auth, progress);

    const request = fiftyToolRequest();
    const body = JSON.stringify(request);
    const mediated = mediateRequest(tenRuleBundle(), {
      surface: 'openai-chat',
      body: JSON.parse(body),
    }).body;
    const mediatedTools = toolCount(mediated);
    progress('checking every target reaches the mock with the right tools');
    for (const target of latencyTargets) {
      await checkReachesMock(
        mockUrl,
        target,
        body,
        TOOLGATE_TARGETS.has(target.name) ? mediatedTools : 50,
      );
    }

    // The same request on the Responses API, through Toolgate only (the other proxies are
    // measured on Chat Completions).
    const responsesBody = JSON.stringify(responsesRequestOf(request));
    const toolgateTarget = targets.find((t) => t.name === 'toolgate');
    if (toolgateTarget) {
      await checkReachesMock(
        mockUrl,
        { ...toolgateTarget, path: RESPONSES_PATH, body: responsesBody },
        responsesBody,
        mediatedTools,
      );
    }

    const streamBody = streamedRequestBody(request);
    const streamTargets: Target[] = [];
    const streamNotes: string[] = [];
    for (const target of targets) {
      const client = new Client(target.origin);
      try {
        await timeToFirstToken(client, target, streamBody);
        streamTargets.push(target);
      } catch (error) {
        streamNotes.push(
          `${target.name}: streaming fails: ${(error as Error).message.slice(0, 160)}`,
        );
      } finally {
        await client.close();
      }
    }

    progress('warm-up: 200 requests per target at concurrency 1, 1 s per target at 64');
    await interleavedLatency(latencyTargets, body, 200);
    for (const target of targets) {
      const pool = loadPool(target, CONCURRENCY);
      await closedLoop(pool, target, body, CONCURRENCY, 1000);
      await pool.close();
      await target.afterBlock?.();
    }

    progress('timing append + fdatasync on the data directory (the floor of a durable receipt)');
    const fsync = await fdatasyncFloor(dataDir);
    const latency = await measureLatency(
      latencyTargets,
      body,
      LATENCY_ROUNDS,
      LATENCY_ITERATIONS,
      progress,
    );
    // Both concurrency-1 measurements before the saturating one: a throughput block leaves work
    // behind (the API's PostgreSQL ingesting ~10k receipts at nice 19, heaps shrinking after the
    // burst) that would land on whichever latency measurement came next.
    const ttft = await measureTtft(
      streamTargets,
      streamBody,
      TTFT_ROUNDS,
      TTFT_ITERATIONS,
      progress,
    );
    let responses: SurfaceLatency | undefined;
    if (toolgateTarget) {
      responses = await measureSurfaces(
        targets[0] as Measured,
        toolgateTarget,
        { chat: body, responses: responsesBody },
        LATENCY_ROUNDS,
        LATENCY_ITERATIONS / 2,
        progress,
      );
    }
    const floor = await floorPhase(processes, {
      mockUrl,
      toolgate,
      headers: auth,
      body,
      mediatedBody: JSON.stringify(mediated),
      cpuProfDir,
      progress,
    });
    let callTimeLatency: Map<string, LatencyResult> | undefined;
    let propagation: PropagationResult | undefined;
    if (toolgate && callTime) {
      callTimeLatency = await measureCallTimeLatency(
        targets[0] as Measured,
        callTime,
        LATENCY_ROUNDS,
        LATENCY_ITERATIONS,
        progress,
      );
      propagation = await measureApprovalPropagation(toolgate, callTime.withWhen, progress);
    }
    const throughput = await measureThroughput(
      targets,
      body,
      { rounds: THROUGHPUT_ROUNDS, durationMs: THROUGHPUT_MS, concurrency: CONCURRENCY },
      progress,
    );
    const receipts = toolgate ? await receiptCounters(toolgate.url) : undefined;

    return report({
      latency,
      throughput,
      ttft,
      streamNotes,
      toolgateError,
      receipts,
      fsync,
      portkeyVersion,
      bodyBytes: Buffer.byteLength(body),
      mediatedTools,
      floor,
      ...(responses ? { responses } : {}),
      ...(callTimeLatency ? { callTime: { latency: callTimeLatency, propagation } } : {}),
    });
  } finally {
    progress('stopping every child process');
    await processes.stopAll();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** `pnpm bench gateway --floor-only`: the mock, Toolgate checked against it, then the floor. */
async function runFloorOnly(
  cpuProfDir: string | undefined,
  progress: (line: string) => void,
): Promise<BenchResult> {
  const processes = new Processes();
  const dataDir = await postgresScratchDir('toolgate-bench-floor-');
  try {
    const { url: mockUrl, mock } = await startMockProvider(processes);
    const toolgate = await startToolgate(processes, {
      mockUrl,
      dataDir,
      progress,
      apiNiceness: 19,
    });
    const headers = { authorization: `Bearer ${AGENT_KEY}` };
    const body = JSON.stringify(fiftyToolRequest());
    const mediated = mediateRequest(tenRuleBundle(), {
      surface: 'openai-chat',
      body: JSON.parse(body),
    }).body;
    const target = { name: 'toolgate', origin: toolgate.url, headers, pgids: [mock.pid] };
    await checkReachesMock(mockUrl, target, body, toolCount(mediated));
    const floor = await floorPhase(processes, {
      mockUrl,
      toolgate,
      headers,
      body,
      mediatedBody: JSON.stringify(mediated),
      cpuProfDir,
      progress,
    });
    return floorOnlyReport(floor);
  } finally {
    progress('stopping every child process');
    await processes.stopAll();
    await rm(dataDir, { recursive: true, force: true });
  }
}

function toolCount(body: unknown): number {
  const tools = (body as { tools?: unknown[] } | undefined)?.tools;
  return Array.isArray(tools) ? tools.length : 0;
}

/** One request through `target`: a 200, and the mock saw it with the expected number of tools. */
async function checkReachesMock(mockUrl: string, target: Target, body: string, tools: number) {
  const lastSeen = async () => {
    const response = await fetch(`${mockUrl}/__mock/requests?limit=1`);
    const { requests } = (await response.json()) as {
      requests: Array<{ seq: number; body: unknown }>;
    };
    return requests[0];
  };
  const before = (await lastSeen())?.seq ?? 0;
  const client = new Client(target.origin);
  try {
    const answer = await post(client, target, body);
    if (answer.status !== 200) {
      throw new Error(`${target.name}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
    }
  } finally {
    await client.close();
  }
  const seen = await lastSeen();
  if (!seen || seen.seq <= before)
    throw new Error(`${target.name}: the request never reached the mock`);
  if (toolCount(seen.body) !== tools) {
    throw new Error(
      `${target.name}: the mock saw ${toolCount(seen.body)} tools, expected ${tools}`,
    );
  }
}
