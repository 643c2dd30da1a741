import { readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { mediateRequest } from '@toolgate/core';
import { findFreePort, postgresScratchDir } from '@toolgate/db';
import { Client } from 'undici';
import { fiftyToolRequest, tenRuleBundle } from './core-mediation.ts';
import {
  type CallTimeTargets,
  callTimeReport,
  measureApprovalPropagation,
  measureCallTimeLatency,
  type PropagationResult,
  startCallTimeGateways,
} from './gateway/call-time.ts';
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
  type ThroughputResult,
  type TtftResult,
} from './gateway/phases.ts';
import { Processes } from './gateway/processes.ts';
import {
  startBareProxy,
  startMockProvider,
  startToolgate,
  type ToolgateStack,
} from './gateway/toolgate-stack.ts';
import type { BenchResult } from './measure.ts';

const LATENCY_ROUNDS = 5;
const LATENCY_ITERATIONS = 400;
const THROUGHPUT_ROUNDS = 3;
const THROUGHPUT_MS = 3000;
const CONCURRENCY = 64;
const TTFT_ROUNDS = 5;
/**
 * The mock's 2 ms pause before the first content delta is a libuv timer, which has millisecond
 * resolution: each stream's first token comes 1–3 ms after its headers, whichever proxy is in
 * between. At 30 streams a round that noise alone moved a target's median by ±0.1 ms from run
 * to run; 100 brings it to about ±0.05 ms.
 */
const TTFT_ITERATIONS = 100;
/** Streamed reply: a few words, 2 ms apart, so a gateway that buffered the stream would show. */
const TTFT_SCRIPT = { text: 'Retries are configured per client.', chunkDelayMs: 2 };

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
const SPOOL_DRAIN_MS = 20_000;

const TARGET_P99_VS_PORTKEY = 0.5;
const TARGET_RPS_VS_PORTKEY = 2;
const TARGET_P50_VS_BARE = 2;
const TARGET_RECEIPTS_SHARE = 0.1;
const TARGET_TTFT_MS = 1;

/** Toolgate with `RECEIPTS=off`: only there to measure what receipts cost. */
const NO_RECEIPTS = 'tg receipts off';
/**
 * Toolgate with `SPOOL_FSYNC=request` (an fsync before every answer, not the default): measured
 * at concurrency 1 only, to show what that durability setting costs on this disk.
 */
const FSYNC_PER_REQUEST = 'tg fsync=request';
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
  const progress = (line: string) => process.stdout.write(`  … ${line}\n`);
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
      const strict = await toolgate.variant('gateway-fsync-request', { SPOOL_FSYNC: 'request' });
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
    const mediatedTools = toolCount(
      mediateRequest(tenRuleBundle(), { surface: 'openai-chat', body: JSON.parse(body) }).body,
    );
    progress('checking every target reaches the mock with the right tools');
    for (const target of latencyTargets) {
      await checkReachesMock(
        mockUrl,
        target,
        body,
        TOOLGATE_TARGETS.has(target.name) ? mediatedTools : 50,
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
      ...(callTimeLatency ? { callTime: { latency: callTimeLatency, propagation } } : {}),
    });
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

async function metricValue(gatewayUrl: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) {
      sum = (sum ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return sum;
}

/**
 * After a Toolgate block, wait for the shipper to empty the spool so that its backlog (and the
 * API's PostgreSQL ingesting it) does not run during the next target's block.
 */
async function drainSpool(gatewayUrl: string): Promise<string | undefined> {
  const started = performance.now();
  const initial = (await metricValue(gatewayUrl, 'toolgate_gateway_spool_depth')) ?? 0;
  let depth = initial;
  while (depth > 0 && performance.now() - started < SPOOL_DRAIN_MS) {
    await sleep(100);
    depth = (await metricValue(gatewayUrl, 'toolgate_gateway_spool_depth')) ?? 0;
  }
  const seconds = (performance.now() - started) / 1000;
  if (initial === 0) return undefined;
  const rate = `${((initial - depth) / seconds).toFixed(0)} receipts/s`;
  return depth > 0
    ? `after the block: spool ${initial} → ${depth} receipts in ${seconds.toFixed(1)} s (shipping ${rate}; the rest runs into the next block)`
    : `after the block: ${initial} spooled receipts shipped in ${seconds.toFixed(1)} s (${rate})`;
}

async function receiptCounters(gatewayUrl: string) {
  return {
    requests: (await metricValue(gatewayUrl, 'toolgate_gateway_requests_total')) ?? 0,
    shipped: (await metricValue(gatewayUrl, 'toolgate_gateway_shipped_receipts_total')) ?? 0,
    depth: (await metricValue(gatewayUrl, 'toolgate_gateway_spool_depth')) ?? 0,
    dropped: (await metricValue(gatewayUrl, 'toolgate_gateway_spool_dropped')) ?? 0,
  };
}

interface Report {
  latency: Map<string, LatencyResult>;
  throughput: Map<string, ThroughputResult>;
  ttft: Map<string, TtftResult>;
  streamNotes: string[];
  toolgateError: string | undefined;
  receipts: Awaited<ReturnType<typeof receiptCounters>> | undefined;
  fsync: { p50: number; p99: number };
  portkeyVersion: string;
  bodyBytes: number;
  mediatedTools: number;
  callTime?: { latency: Map<string, LatencyResult>; propagation: PropagationResult | undefined };
}

function report(r: Report): BenchResult {
  const ms = (value: number | undefined) => (value === undefined ? '—' : `${value.toFixed(3)} ms`);
  const pad = (text: string, width: number) => text.padStart(width);
  const lines: string[] = [];
  const cpu = cpus();
  lines.push(
    `machine: Node ${process.version}, ${cpu.length}× ${cpu[0]?.model.trim() ?? 'unknown CPU'}; every server is its own process, the load generator is this one`,
    `request: POST /v1/chat/completions, ${(r.bodyBytes / 1024).toFixed(1)} KiB, 50 tools; mock answers at once (no added latency)`,
    `toolgate: 10 rules (the mock sees ${r.mediatedTools} of 50 tools), receipts on (the default SPOOL_FSYNC=interval: written before the answer, fsynced within 10 ms; shipped to the API)`,
    `portkey: @portkey-ai/gateway ${r.portkeyVersion}, --headless, x-portkey-provider: openai, x-portkey-custom-host: <mock>/v1`,
    '',
    `concurrency 1: ${LATENCY_ROUNDS} rounds × ${LATENCY_ITERATIONS} requests per target, interleaved request by request; medians of the rounds; added = target − direct, same round`,
    `  ${'target'.padEnd(16)}${pad('p50', 12)}${pad('p99', 12)}${pad('added p50', 12)}${pad('added p99', 12)}`,
  );
  for (const [name, l] of r.latency) {
    const direct = name === 'direct';
    lines.push(
      `  ${name.padEnd(16)}${pad(ms(l.p50), 12)}${pad(ms(l.p99), 12)}${pad(direct ? '—' : ms(l.addedP50), 12)}${pad(direct ? '—' : ms(l.addedP99), 12)}`,
    );
  }
  lines.push(
    '',
    `concurrency ${CONCURRENCY}: ${THROUGHPUT_ROUNDS} rounds × ${THROUGHPUT_MS / 1000} s per target, order rotated; medians of the rounds; CPU/req = the server process's own CPU (direct: the mock; a proxy: the proxy alone)`,
    `  ${'target'.padEnd(16)}${pad('req/s', 10)}${pad('CPU/req', 15)}   rounds`,
  );
  for (const [name, t] of r.throughput) {
    const cpuText =
      t.cpuMsPerRequest === undefined ? '—' : `${(t.cpuMsPerRequest * 1000).toFixed(0)} µs`;
    const errors = t.errors > 0 ? `, ${t.errors} errors (${t.firstError})` : '';
    lines.push(
      `  ${name.padEnd(16)}${pad(t.perSecond.toFixed(0), 10)}${pad(cpuText, 15)}   ${t.rounds.map((x) => x.toFixed(0)).join(' / ')}${errors}`,
    );
    for (const note of t.notes) lines.push(`  ${''.padEnd(16)}${note}`);
  }
  if (r.receipts) {
    lines.push(
      `  toolgate receipts: ${r.receipts.requests} requests, ${r.receipts.shipped} receipts shipped to the API, ${r.receipts.depth} still spooled, ${r.receipts.dropped} dropped`,
    );
  }
  lines.push(
    '',
    `streaming: ${TTFT_ROUNDS} rounds × ${TTFT_ITERATIONS} streams per target, interleaved; TTFT = first non-empty content delta (mock script ${JSON.stringify(TTFT_SCRIPT)})`,
  );
  for (const [name, t] of r.ttft) {
    lines.push(
      `  ${name.padEnd(16)} p50 ${ms(t.p50)}, p99 ${ms(t.p99)}${name === 'direct' ? '' : `, added p50 ${ms(t.addedP50)}`}`,
    );
  }
  for (const note of r.streamNotes) lines.push(`  ${note}`);
  if (r.callTime) {
    lines.push(
      '',
      'call-time rules: 10 tools, the mock answers 3 calls the rules match; same rounds as above',
    );
    for (const [name, l] of r.callTime.latency) {
      if (name === 'direct') continue;
      lines.push(
        `  ${name.padEnd(18)} p50 ${ms(l.p50)}, added p50 ${ms(l.addedP50)}, added p99 ${ms(l.addedP99)}`,
      );
    }
  }

  lines.push('', 'targets:');
  let passed = true;
  const verdict = (ok: boolean) => {
    if (!ok) passed = false;
    return ok ? 'PASS' : 'FAIL';
  };
  const tg = r.latency.get('toolgate');
  const pk = r.latency.get('portkey');
  const bare = r.latency.get('bare proxy');
  const tgRps = r.throughput.get('toolgate');
  const pkRps = r.throughput.get('portkey');
  const tgTtft = r.ttft.get('toolgate');
  if (!tg || !tgRps) {
    passed = false;
    lines.push(
      `  toolgate: gateway not runnable: ${r.toolgateError ?? 'unknown'} — no Toolgate target measured`,
    );
  } else {
    const label = (text: string) => `  ${text.padEnd(34)}`;
    const p99Ratio = tg.addedP99 / (pk?.addedP99 ?? Number.NaN);
    lines.push(
      `${label(`added p99 ≤ ${TARGET_P99_VS_PORTKEY}× Portkey's`)}${ms(tg.addedP99)} vs ${ms(pk?.addedP99)} → ${p99Ratio.toFixed(2)}× ${verdict(p99Ratio <= TARGET_P99_VS_PORTKEY)}`,
    );
    const rpsRatio = tgRps.perSecond / (pkRps?.perSecond ?? Number.NaN);
    lines.push(
      `${label(`req/s ≥ ${TARGET_RPS_VS_PORTKEY}× Portkey's`)}${tgRps.perSecond.toFixed(0)} vs ${pkRps?.perSecond.toFixed(0)} → ${rpsRatio.toFixed(2)}× ${verdict(rpsRatio >= TARGET_RPS_VS_PORTKEY && tgRps.errors === 0)}`,
    );
    const p50Ratio = tg.addedP50 / (bare?.addedP50 ?? Number.NaN);
    lines.push(
      `${label(`added p50 ≤ ${TARGET_P50_VS_BARE}× bare proxy's`)}${ms(tg.addedP50)} vs ${ms(bare?.addedP50)} → ${p50Ratio.toFixed(2)}× ${verdict(p50Ratio <= TARGET_P50_VS_BARE)}`,
    );
    const off = r.latency.get(NO_RECEIPTS);
    const share = off ? (tg.p99 - off.p99) / tg.p99 : Number.NaN;
    lines.push(
      `${label(`receipts cost ≤ ${TARGET_RECEIPTS_SHARE * 100}% of p99`)}p99 ${ms(tg.p99)} on vs ${ms(off?.p99)} off → ${(share * 100).toFixed(1)}% ${verdict(share <= TARGET_RECEIPTS_SHARE)}`,
      `${label('')}floor on this disk: 2 KiB append + fdatasync p50 ${ms(r.fsync.p50)}, p99 ${ms(r.fsync.p99)} (${((r.fsync.p99 / tg.p99) * 100).toFixed(1)}% of Toolgate's p99)`,
    );
    const strict = r.latency.get(FSYNC_PER_REQUEST);
    if (strict) {
      lines.push(
        `${label('')}with SPOOL_FSYNC=request (not a target): added p50 ${ms(strict.addedP50)}, p99 ${ms(strict.addedP99)}`,
      );
    }
    if (tgTtft) {
      lines.push(
        `${label(`streaming adds ≤ ${TARGET_TTFT_MS} ms to TTFT`)}${ms(tgTtft.addedP50)} (median of rounds) ${verdict(tgTtft.addedP50 <= TARGET_TTFT_MS)}`,
      );
    } else {
      passed = false;
      lines.push(
        `${label(`streaming adds ≤ ${TARGET_TTFT_MS} ms to TTFT`)}FAIL: Toolgate did not stream (see above)`,
      );
    }
    if (r.callTime) {
      lines.push(...callTimeReport(r.callTime.latency, r.callTime.propagation, label, ms, verdict));
    } else {
      passed = false;
      lines.push(`${label('call-time rules')}FAIL: not measured`);
    }
  }
  return {
    name: 'gateway: direct vs bare proxy vs Portkey vs Toolgate (50 tools, 10 rules, receipts on)',
    passed,
    lines,
  };
}
