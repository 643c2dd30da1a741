/**
 * What `pnpm bench mcp` measures, how much of it, and the targets it is held to.
 * `BENCH_MCP_SMOKE=1` shrinks every count to check that the harness runs (no figures to quote).
 */
const SMOKE = process.env.BENCH_MCP_SMOKE === '1';

export const LATENCY_ROUNDS = SMOKE ? 1 : 5;
export const LATENCY_ITERATIONS = SMOKE ? 20 : 400;
export const THROUGHPUT_ROUNDS = SMOKE ? 1 : 3;
export const THROUGHPUT_MS = SMOKE ? 300 : 3000;
export const CONCURRENCY = 32;
/** Before anything is timed: calls per target at concurrency 1, then a block at CONCURRENCY. */
export const WARMUP_CALLS = SMOKE ? 20 : 200;
export const WARMUP_MS = SMOKE ? 200 : 1000;

/** The cheap, deterministic call every target makes. */
export const ECHO_CALL = { name: 'echo', arguments: { text: 'ping' } } as const;

export const TARGET_ADDED_P50_MS = 1;
export const TARGET_CPS_VS_MCP_PROXY = 1.5;

export const DIRECT = 'direct';
export const MCP_PROXY = 'mcp-proxy';
/** The floor of any Node HTTP hop: `bench/gateway/bare-proxy.mjs`, bytes in and out, nothing parsed. */
export const BARE_HOP = 'bare hop';
export const TOOLGATE = 'toolgate';
/** `BENCH_MCP_BASELINE=<main.mjs>`: another build of the gateway beside this one (A/B in one run). */
export const BASELINE = 'baseline';
/** The McpServer the bench registers (agents call `<gateway>/mcp/bench`). */
export const BENCH_MCP_SERVER = 'bench';
