import { cpus } from 'node:os';
import type { LatencyResult, ThroughputResult } from '../gateway/phases.ts';
import type { ReceiptCounters } from '../gateway/report.ts';
import type { BenchResult } from '../measure.ts';
import { LOAD_CLIENT } from './load.ts';
import {
  BARE_HOP,
  BASELINE,
  CONCURRENCY,
  DIRECT,
  ECHO_CALL,
  LATENCY_ITERATIONS,
  LATENCY_ROUNDS,
  MCP_PROXY,
  TARGET_ADDED_P50_MS,
  TARGET_CPS_VS_MCP_PROXY,
  THROUGHPUT_MS,
  THROUGHPUT_ROUNDS,
  TOOLGATE,
  WARMUP_CALLS,
  WARMUP_MS,
} from './plan.ts';

/** Everything measured, as the report reads it. */
export interface McpReport {
  latency: Map<string, LatencyResult>;
  /** The same at concurrency 1 in blocks per target (hot processes). */
  blocks: Map<string, LatencyResult>;
  throughput: Map<string, ThroughputResult>;
  /** The load generator's own CPU per call at concurrency 32, µs, per target. */
  clientCpuUs: Map<string, number>;
  sdkVersion: string;
  mcpProxyVersion: string;
  toolgateError: string | undefined;
  receipts: ReceiptCounters | undefined;
}

export function mcpReport(r: McpReport): BenchResult {
  const ms = (value: number | undefined) => (value === undefined ? '—' : `${value.toFixed(3)} ms`);
  const pad = (text: string, width: number) => text.padStart(width);
  const cpu = cpus();
  const lines: string[] = [
    `machine: Node ${process.version}, ${cpu.length}× ${cpu[0]?.model.trim() ?? 'unknown CPU'}; every server is its own process, the load generator is this one`,
    `call: tools/call ${JSON.stringify(ECHO_CALL)} to the demo MCP server (apps/mock-mcp: the SDK's McpServer on node:http, SSE answers), SDK ${r.sdkVersion}; every target first checked with an SDK Client`,
    LOAD_CLIENT === 'wire'
      ? "load generator: the bench's lean Streamable HTTP client (bench/mcp/wire-client.ts), one initialized session per worker; BENCH_MCP_CLIENT=sdk for SDK Clients"
      : 'load generator: SDK Clients (BENCH_MCP_CLIENT=sdk), one initialized session per worker',
    'bare hop: bench/gateway/bare-proxy.mjs (node:http in, undici Pool out, bytes piped, nothing parsed): the floor any Node proxy pays',
    `mcp-proxy: ${r.mcpProxyVersion} (its library: one upstream SDK Client on Streamable HTTP, proxyServer per downstream session, event store off)`,
    'toolgate: <gateway>/mcp/bench as a token-proven agent; 12 rules in the bundle (2 for the server, 10 LLM ones), receipts on and shipped to the API',
    `warm-up: ${WARMUP_CALLS} calls per target at concurrency 1, ${WARMUP_MS / 1000} s per target at ${CONCURRENCY}`,
    '',
  ];
  const latencyTable = (title: string, table: Map<string, LatencyResult>) => {
    lines.push(
      `concurrency 1, ${title}: ${LATENCY_ROUNDS} rounds × ${LATENCY_ITERATIONS} calls per target; medians of the rounds; added = target − direct, same round`,
      `  ${'target'.padEnd(12)}${pad('p50', 12)}${pad('p99', 12)}${pad('added p50', 12)}${pad('added p99', 12)}`,
    );
    for (const [name, l] of table) {
      const direct = name === DIRECT;
      lines.push(
        `  ${name.padEnd(12)}${pad(ms(l.p50), 12)}${pad(ms(l.p99), 12)}${pad(direct ? '—' : ms(l.addedP50), 12)}${pad(direct ? '—' : ms(l.addedP99), 12)}`,
      );
    }
  };
  latencyTable('interleaved call by call (every process idle between its calls)', r.latency);
  lines.push('');
  latencyTable('in blocks (each target called back to back, order rotated per round)', r.blocks);
  lines.push(
    '',
    `concurrency ${CONCURRENCY} (${CONCURRENCY} sessions per target): ${THROUGHPUT_ROUNDS} rounds × ${THROUGHPUT_MS / 1000} s per target, order rotated; medians of the rounds; CPU/call = the server process's own CPU (direct: the MCP server; a proxy: the proxy alone); client CPU/call = the load generator's`,
    `  ${'target'.padEnd(12)}${pad('calls/s', 10)}${pad('CPU/call', 15)}${pad('client CPU/call', 18)}   rounds`,
  );
  for (const [name, t] of r.throughput) {
    const cpuText =
      t.cpuMsPerRequest === undefined ? '—' : `${(t.cpuMsPerRequest * 1000).toFixed(0)} µs`;
    const client = r.clientCpuUs.get(name);
    const clientText = client === undefined ? '—' : `${client.toFixed(0)} µs`;
    const errors = t.errors > 0 ? `, ${t.errors} errors (${t.firstError})` : '';
    lines.push(
      `  ${name.padEnd(12)}${pad(t.perSecond.toFixed(0), 10)}${pad(cpuText, 15)}${pad(clientText, 18)}   ${t.rounds.map((x) => x.toFixed(0)).join(' / ')}${errors}`,
    );
    for (const note of t.notes) lines.push(`  ${''.padEnd(12)}${note}`);
  }
  if (r.receipts) {
    lines.push(
      `  toolgate receipts: ${r.receipts.requests} MCP requests answered, ${r.receipts.shipped} receipts shipped to the API, ${r.receipts.depth} still spooled, ${r.receipts.dropped} dropped`,
    );
  }

  lines.push('', 'targets:');
  let passed = true;
  const verdict = (ok: boolean) => {
    if (!ok) passed = false;
    return ok ? 'PASS' : 'FAIL';
  };
  const label = (text: string) => `  ${text.padEnd(36)}`;
  const tg = r.latency.get(TOOLGATE);
  const tgCps = r.throughput.get(TOOLGATE);
  const proxy = r.latency.get(MCP_PROXY);
  const proxyCps = r.throughput.get(MCP_PROXY);
  if (proxy && proxyCps) {
    lines.push(
      `${label('mcp-proxy (reference, no target)')}added p50 ${ms(proxy.addedP50)} interleaved, ${ms(r.blocks.get(MCP_PROXY)?.addedP50)} in blocks; ${proxyCps.perSecond.toFixed(0)} calls/s`,
    );
  }
  const bare = r.latency.get(BARE_HOP);
  const bareCps = r.throughput.get(BARE_HOP);
  if (bare && bareCps) {
    lines.push(
      `${label('bare hop (floor, no target)')}added p50 ${ms(bare.addedP50)} interleaved, ${ms(r.blocks.get(BARE_HOP)?.addedP50)} in blocks; ${bareCps.perSecond.toFixed(0)} calls/s`,
    );
  }
  const base = r.latency.get(BASELINE);
  const baseCps = r.throughput.get(BASELINE);
  if (base && baseCps) {
    lines.push(
      `${label('baseline build (A/B, no target)')}added p50 ${ms(base.addedP50)} interleaved, ${ms(r.blocks.get(BASELINE)?.addedP50)} in blocks; ${baseCps.perSecond.toFixed(0)} calls/s`,
    );
  }
  if (!tg || !tgCps) {
    passed = false;
    lines.push(
      `  toolgate: not runnable: ${r.toolgateError ?? 'unknown'} — no Toolgate target measured`,
    );
  } else {
    // The target is judged on back-to-back calls (in blocks), the usual concurrency-1 figure.
    // Interleaved, every process is woken cold for each call, and that wake is mostly the
    // machine's: the bare hop, which parses nothing, pays most of a millisecond for it on this
    // VM, and more the more targets take turns. It is reported, with what Toolgate adds over
    // that hop, but not judged (README.md, "What is measured").
    const tgBlocks = r.blocks.get(TOOLGATE);
    lines.push(
      `${label(`added p50 ≤ ${TARGET_ADDED_P50_MS} ms (in blocks)`)}${ms(tgBlocks?.addedP50)} (added p99 ${ms(tgBlocks?.addedP99)}) ${verdict(tgBlocks !== undefined && tgBlocks.addedP50 <= TARGET_ADDED_P50_MS)}`,
    );
    lines.push(
      `${label('cold calls (interleaved, no target)')}added p50 ${ms(tg.addedP50)} (added p99 ${ms(tg.addedP99)}); over the bare hop's ${bare ? ms(tg.addedP50 - bare.addedP50) : 'n/a'}`,
    );
    const ratio = tgCps.perSecond / (proxyCps?.perSecond ?? Number.NaN);
    lines.push(
      `${label(`calls/s ≥ ${TARGET_CPS_VS_MCP_PROXY}× mcp-proxy's`)}${tgCps.perSecond.toFixed(0)} vs ${proxyCps?.perSecond.toFixed(0)} → ${ratio.toFixed(2)}× ${verdict(ratio >= TARGET_CPS_VS_MCP_PROXY && tgCps.errors === 0)}`,
    );
  }
  return {
    name: `mcp: tools/call direct vs mcp-proxy vs Toolgate (same SDK server, ${LOAD_CLIENT === 'wire' ? 'lean wire' : 'SDK'} clients with sessions)`,
    passed,
    lines,
  };
}
