import { cpus } from 'node:os';
import type { BenchResult } from '../measure.ts';
import { callTimeReport, type PropagationResult } from './call-time.ts';
import { type FloorResult, floorReport } from './floor.ts';
import type { LatencyResult, ThroughputResult, TtftResult } from './phases.ts';
import {
  CONCURRENCY,
  FSYNC_PER_REQUEST,
  LATENCY_ITERATIONS,
  LATENCY_ROUNDS,
  NO_RECEIPTS,
  TARGET_P50_VS_BARE,
  TARGET_P99_VS_PORTKEY,
  TARGET_RECEIPTS_SHARE,
  TARGET_RPS_VS_PORTKEY,
  TARGET_TTFT_MS,
  THROUGHPUT_MS,
  THROUGHPUT_ROUNDS,
  TTFT_ITERATIONS,
  TTFT_ROUNDS,
  TTFT_SCRIPT,
} from './plan.ts';
import { responsesReport, type SurfaceLatency } from './responses.ts';

/** What the gateway's `/metrics` said about receipts at the end of the run. */
export interface ReceiptCounters {
  requests: number;
  shipped: number;
  depth: number;
  dropped: number;
}

/** Everything measured, as the report reads it. */
export interface Report {
  latency: Map<string, LatencyResult>;
  throughput: Map<string, ThroughputResult>;
  ttft: Map<string, TtftResult>;
  streamNotes: string[];
  toolgateError: string | undefined;
  receipts: ReceiptCounters | undefined;
  fsync: { p50: number; p99: number };
  portkeyVersion: string;
  bodyBytes: number;
  mediatedTools: number;
  callTime?: { latency: Map<string, LatencyResult>; propagation: PropagationResult | undefined };
  /** The static floor (floor.ts) and, with `--cpu-prof`, its Toolgate's profile summary. */
  floor?: { result: FloorResult; profile: string[] };
  /** Toolgate's added p50 on the Responses API next to Chat Completions', same rounds. */
  responses?: SurfaceLatency;
}

export function report(r: Report): BenchResult {
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
  const verdictless = () => '';
  const label = (text: string) => `  ${text.padEnd(36)} `;
  const floor = floorReport(r.floor?.result, label, ms, verdictless);
  lines.push(...floor.tables, ...(r.floor?.profile ?? []));
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
  if (r.responses) {
    lines.push(
      '',
      `OpenAI Responses: the same 50 tools, flat, to POST /v1/responses; ${LATENCY_ROUNDS} rounds × ${LATENCY_ITERATIONS / 2} requests per target, interleaved with Chat Completions`,
      `  toolgate chat       added p50 ${ms(r.responses.chatAddedP50)}`,
      `  toolgate responses  added p50 ${ms(r.responses.responsesAddedP50)}, added p99 ${ms(r.responses.responsesAddedP99)}`,
    );
  }
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
    lines.push(...floorReport(r.floor?.result, label, ms, verdict).targets);
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
    lines.push(...responsesReport(r.responses, label, ms, verdict));
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
