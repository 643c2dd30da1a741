import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Client } from 'undici';
import { TEN_RULES } from '../core-mediation.ts';
import type { BenchResult } from '../measure.ts';
import { median } from '../measure.ts';
import { provision } from './call-time.ts';
import { newestProfile, profileLines, summarizeProfile } from './cpu-profile.ts';
import { interleavedLatency, percentile, post, type Target } from './load.ts';
import { type LatencyResult, type Measured, measureLatency } from './phases.ts';
import type { Processes, Started } from './processes.ts';
import { startBareProxy, startStaticMock, type ToolgateStack } from './toolgate-stack.ts';

/**
 * The honest floor of `pnpm bench gateway` (issue #25): the same request to a static mock that
 * does no work (`static-mock.mjs`: drains the body, answers a fixed JSON), directly, through the
 * bare hop (`bare-proxy.mjs`: `node:http` in, undici `Pool` out, plain node) and through
 * Toolgate (the production build, receipts on, its own process on the same API and policy).
 * Next to the real mock, which parses and validates every 26 KiB request (~1 ms of CPU), each
 * proxy's own cost looks smaller than it is; next to this one it does not.
 *
 * Measured twice: interleaved request by request (as the main latency table), and in blocks
 * (1,500 sequential keep-alive requests to one target at concurrency 1, then the next target),
 * where each target runs with its caches warm, as a harness measuring one proxy at a time sees it.
 */

export const FLOOR_BLOCK_REQUESTS = 1500;
export const FLOOR_BLOCK_ROUNDS = 3;
export const FLOOR_INTERLEAVED_ROUNDS = 5;
export const FLOOR_INTERLEAVED_REQUESTS = 400;
export const TARGET_FLOOR_VS_BARE = 2.5;

export const STATIC_DIRECT = 'static direct';
export const STATIC_BARE = 'static bare hop';
export const STATIC_TOOLGATE = 'static toolgate';

export interface FloorTargets {
  direct: Measured;
  bare: Measured;
  toolgate?: Measured;
  /** Toolgate's process (stopped first when profiled, so its profile is written). */
  toolgateProcess?: Started;
}

export interface FloorResult {
  interleaved: Map<string, LatencyResult>;
  blocks: Map<string, LatencyResult>;
  /** Monotonic clock windows (µs, process.hrtime) of the Toolgate blocks: for its CPU profile. */
  toolgateBlocks: Array<{ startUs: number; endUs: number; requests: number }>;
}

/**
 * Starts the static mock (answering `reply`), a bare hop in front of it and, when Toolgate runs,
 * a gateway variant whose OpenAI upstream is the static mock (`nodeArgs`: e.g. `--cpu-prof`).
 */
export async function startFloor(
  processes: Processes,
  options: {
    reply: string;
    headers: Record<string, string>;
    toolgate: ToolgateStack | undefined;
    nodeArgs?: string[];
  },
): Promise<FloorTargets> {
  const { url, mock } = await startStaticMock(processes, options.reply);
  const { url: bareUrl, bare } = await startBareProxy(processes, url, 'static bare hop');
  const targets: FloorTargets = {
    direct: { name: STATIC_DIRECT, origin: url, headers: options.headers, pgids: [mock.pid] },
    bare: { name: STATIC_BARE, origin: bareUrl, headers: options.headers, pgids: [bare.pid] },
  };
  if (options.toolgate) {
    // Its own gateway identity (and chain), the same ten rules.
    const { name, token } = await provision(options.toolgate, 'bench-gateway-static', TEN_RULES);
    // FLOOR_GATEWAY_DIST: another build in this place (profiling a baseline, compare-builds.ts).
    const dist = process.env.FLOOR_GATEWAY_DIST;
    const gateway = await options.toolgate.variant(
      'gateway-static',
      { OPENAI_BASE_URL: url, GATEWAY_NAME: name, API_TOKEN: token },
      dist ? resolve(dist) : undefined,
      options.nodeArgs,
    );
    targets.toolgate = {
      name: STATIC_TOOLGATE,
      origin: gateway.url,
      headers: options.headers,
      pgids: [gateway.gateway.pid],
    };
    targets.toolgateProcess = gateway.gateway;
  }
  return targets;
}

export function floorList(targets: FloorTargets): Measured[] {
  return [targets.direct, targets.bare, ...(targets.toolgate ? [targets.toolgate] : [])];
}

/**
 * One request through each floor target: a 200 with the static reply's content, the static mock
 * saw it, with `bytes` bytes of body (the request as sent; through Toolgate, the mediated one —
 * the real mock checked its tools already), and Toolgate's answer names its receipt.
 */
export async function checkFloor(
  targets: FloorTargets,
  body: string,
  expected: { reply: string; bytes: number; mediatedBytes: number },
): Promise<void> {
  const content = (text: string) =>
    (JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown } }> }).choices?.[0]
      ?.message?.content;
  const wanted = content(expected.reply);
  const last = async () =>
    (await (await fetch(`${targets.direct.origin}/__static/last`)).json()) as {
      requests: number;
      lastBytes: number;
    };
  for (const target of floorList(targets)) {
    const before = (await last()).requests;
    const client = new Client(target.origin);
    try {
      const response = await client.request({
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { 'content-type': 'application/json', ...target.headers },
        body,
      });
      const text = await response.body.text();
      if (response.statusCode !== 200) {
        throw new Error(`${target.name}: HTTP ${response.statusCode} ${text.slice(0, 300)}`);
      }
      if (content(text) !== wanted) {
        throw new Error(
          `${target.name}: the answer is not the static reply: ${text.slice(0, 200)}`,
        );
      }
      if (target === targets.toolgate && !response.headers['x-toolgate-receipt-id']) {
        throw new Error(`${target.name}: the answer names no receipt`);
      }
    } finally {
      await client.close();
    }
    const seen = await last();
    const bytes = target === targets.toolgate ? expected.mediatedBytes : expected.bytes;
    if (seen.requests !== before + 1) {
      throw new Error(`${target.name}: the static mock saw ${seen.requests - before} requests`);
    }
    if (seen.lastBytes !== bytes) {
      throw new Error(`${target.name}: the static mock got ${seen.lastBytes} bytes, not ${bytes}`);
    }
  }
}

/**
 * The whole floor phase: the static mock answering what the real mock (`mockUrl`) answers to
 * `body`, its targets started and checked, measured; with `cpuProfDir`, Toolgate's run under
 * `--cpu-prof`, stopped at the end and its profile summarized over its blocks.
 */
export async function floorPhase(
  processes: Processes,
  options: {
    mockUrl: string;
    toolgate: ToolgateStack | undefined;
    headers: Record<string, string>;
    body: string;
    /** The body the provider gets through Toolgate (the ten rules' result). */
    mediatedBody: string;
    cpuProfDir: string | undefined;
    progress: (line: string) => void;
  },
): Promise<{ result: FloorResult; profile: string[] }> {
  const { progress, body, cpuProfDir } = options;
  const client = new Client(options.mockUrl);
  let reply: string;
  try {
    reply = (
      await post(client, { name: 'mock', origin: options.mockUrl, headers: options.headers }, body)
    ).text;
  } finally {
    await client.close();
  }
  if (cpuProfDir) await rm(cpuProfDir, { recursive: true, force: true });
  progress('starting the static floor: static mock, bare hop, Toolgate on the static mock');
  const targets = await startFloor(processes, {
    reply,
    headers: options.headers,
    toolgate: options.toolgate,
    ...(cpuProfDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] } : {}),
  });
  await checkFloor(targets, body, {
    reply,
    bytes: Buffer.byteLength(body),
    mediatedBytes: Buffer.byteLength(options.mediatedBody),
  });
  const result = await measureFloor(targets, body, progress);
  const profile: string[] = [];
  if (cpuProfDir && targets.toolgateProcess) {
    progress('stopping the profiled gateway and summarizing its CPU profile');
    await processes.stop(targets.toolgateProcess);
    const file = await newestProfile(cpuProfDir);
    profile.push(...profileLines(await summarizeProfile(file, result.toolgateBlocks, 30), file));
  }
  return { result, profile };
}

/** Interleaved rounds, then blocks per target; added = target − static direct, same round. */
export async function measureFloor(
  targets: FloorTargets,
  body: string,
  progress: (line: string) => void,
): Promise<FloorResult> {
  const list = floorList(targets);
  progress(`floor warm-up: ${FLOOR_INTERLEAVED_REQUESTS} requests per target`);
  await interleavedLatency(list, body, FLOOR_INTERLEAVED_REQUESTS);
  const interleaved = await measureLatency(
    list,
    body,
    FLOOR_INTERLEAVED_ROUNDS,
    FLOOR_INTERLEAVED_REQUESTS,
    (line) => progress(`static floor, ${line}`),
    STATIC_DIRECT,
  );
  const toolgateBlocks: FloorResult['toolgateBlocks'] = [];
  const blocks = await measureBlocks(list, body, {
    rounds: FLOOR_BLOCK_ROUNDS,
    requests: FLOOR_BLOCK_REQUESTS,
    directName: STATIC_DIRECT,
    progress: (line) => progress(`static floor, ${line}`),
    onBlock: (target, window) => {
      if (target === targets.toolgate) toolgateBlocks.push(window);
    },
  });
  return { interleaved, blocks, toolgateBlocks };
}

/**
 * `rounds` rounds of one block per target (`requests` sequential keep-alive requests, one target
 * at a time), the order rotated per round; p50/p99 as medians of rounds, added over
 * `directName`'s block of the same round. `onBlock` gets each block's monotonic window (µs).
 */
export async function measureBlocks<T extends Target>(
  targets: ReadonlyArray<T>,
  body: string,
  options: {
    rounds: number;
    requests: number;
    directName: string;
    progress: (line: string) => void;
    onBlock?: (target: T, window: { startUs: number; endUs: number; requests: number }) => void;
  },
): Promise<Map<string, LatencyResult>> {
  const perRound = new Map(targets.map((t) => [t.name, [] as Array<{ p50: number; p99: number }>]));
  for (let round = 0; round < options.rounds; round++) {
    options.progress(
      `blocks round ${round + 1}/${options.rounds}: ${options.requests} sequential requests per target`,
    );
    for (let k = 0; k < targets.length; k++) {
      const target = targets[(round + k) % targets.length] as T;
      const startUs = monotonicUs();
      const samples = await block(target, body, options.requests);
      options.onBlock?.(target, { startUs, endUs: monotonicUs(), requests: samples.length });
      perRound
        .get(target.name)
        ?.push({ p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) });
    }
  }
  const direct = perRound.get(options.directName) ?? [];
  const results = new Map<string, LatencyResult>();
  for (const [name, stats] of perRound) {
    results.set(name, {
      p50: median(stats.map((s) => s.p50)),
      p99: median(stats.map((s) => s.p99)),
      addedP50: median(stats.map((s, r) => s.p50 - (direct[r]?.p50 ?? 0))),
      addedP99: median(stats.map((s, r) => s.p99 - (direct[r]?.p99 ?? 0))),
    });
  }
  return results;
}

/** `requests` sequential requests to one target on one keep-alive connection. */
async function block(target: Target, body: string, requests: number): Promise<number[]> {
  const client = new Client(target.origin, { keepAliveTimeout: 30_000 });
  const samples: number[] = [];
  try {
    for (let i = 0; i < requests; i++) {
      const sample = await post(client, target, body);
      if (sample.status !== 200) {
        throw new Error(`${target.name}: HTTP ${sample.status} ${sample.text.slice(0, 300)}`);
      }
      samples.push(sample.ms);
    }
  } finally {
    await client.close();
  }
  return samples;
}

/** The clock V8's CPU profiles are stamped with (CLOCK_MONOTONIC), in µs. */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** The floor's tables and its target line. */
export function floorReport(
  result: FloorResult | undefined,
  label: (text: string) => string,
  ms: (value: number | undefined) => string,
  verdict: (ok: boolean) => string,
): { tables: string[]; targets: string[] } {
  const target = label(`added p50 ≤ ${TARGET_FLOOR_VS_BARE}× bare hop (static mock)`);
  if (result === undefined)
    return { tables: [], targets: [`${target}${verdict(false)}: not measured`] };
  const pad = (text: string, width: number) => text.padStart(width);
  const tables: string[] = [
    '',
    `static floor: the static mock (drains the body unparsed, answers a fixed JSON); bare hop = node:http + undici Pool (plain node)`,
  ];
  const table = (title: string, rows: Map<string, LatencyResult>) => {
    tables.push(
      `  ${title}`,
      `    ${'target'.padEnd(16)}${pad('p50', 12)}${pad('p99', 12)}${pad('added p50', 12)}${pad('added p99', 12)}`,
    );
    for (const [name, l] of rows) {
      const direct = name === STATIC_DIRECT;
      tables.push(
        `    ${name.padEnd(16)}${pad(ms(l.p50), 12)}${pad(ms(l.p99), 12)}${pad(direct ? '—' : ms(l.addedP50), 12)}${pad(direct ? '—' : ms(l.addedP99), 12)}`,
      );
    }
  };
  table(
    `interleaved: ${FLOOR_INTERLEAVED_ROUNDS} rounds × ${FLOOR_INTERLEAVED_REQUESTS} requests per target, request by request; medians of rounds`,
    result.interleaved,
  );
  table(
    `blocks: ${FLOOR_BLOCK_ROUNDS} rounds × ${FLOOR_BLOCK_REQUESTS} sequential keep-alive requests per target, one target at a time; medians of rounds`,
    result.blocks,
  );
  const ratio = (rows: Map<string, LatencyResult>) =>
    (rows.get(STATIC_TOOLGATE)?.addedP50 ?? Number.NaN) /
    (rows.get(STATIC_BARE)?.addedP50 ?? Number.NaN);
  const blocks = ratio(result.blocks);
  const interleaved = ratio(result.interleaved);
  const added = (rows: Map<string, LatencyResult>, name: string) => ms(rows.get(name)?.addedP50);
  return {
    tables,
    targets: [
      `${target}blocks ${added(result.blocks, STATIC_TOOLGATE)} vs ${added(result.blocks, STATIC_BARE)} → ${blocks.toFixed(2)}× ${verdict(blocks <= TARGET_FLOOR_VS_BARE)}`,
      `${label('')}interleaved ${added(result.interleaved, STATIC_TOOLGATE)} vs ${added(result.interleaved, STATIC_BARE)} → ${interleaved.toFixed(2)}× ${verdict(interleaved <= TARGET_FLOOR_VS_BARE)}`,
    ],
  };
}

/** `--floor-only`: the floor's tables, its profile (if any) and its target. */
export function floorOnlyReport(floor: { result: FloorResult; profile: string[] }): BenchResult {
  const ms = (value: number | undefined) => (value === undefined ? '—' : `${value.toFixed(3)} ms`);
  let passed = true;
  const verdict = (ok: boolean) => {
    if (!ok) passed = false;
    return ok ? 'PASS' : 'FAIL';
  };
  const { tables, targets } = floorReport(floor.result, (t) => `  ${t.padEnd(36)} `, ms, verdict);
  return {
    name: 'gateway, static floor only (--floor-only): Toolgate vs the bare hop on a static mock',
    passed,
    lines: [...tables, ...floor.profile, '', 'targets:', ...targets],
  };
}
