/** What `pnpm bench gateway` measures, how much of it, and the targets it is held to. */

export const LATENCY_ROUNDS = 5;
export const LATENCY_ITERATIONS = 400;
export const THROUGHPUT_ROUNDS = 3;
export const THROUGHPUT_MS = 3000;
export const CONCURRENCY = 64;
export const TTFT_ROUNDS = 5;
/**
 * The mock's 2 ms pause before the first content delta is a libuv timer, which has millisecond
 * resolution: each stream's first token comes 1–3 ms after its headers, whichever proxy is in
 * between. At 30 streams a round that noise alone moved a target's median by ±0.1 ms from run
 * to run; 100 brings it to about ±0.05 ms.
 */
export const TTFT_ITERATIONS = 100;
/** Streamed reply: a few words, 2 ms apart, so a gateway that buffered the stream would show. */
export const TTFT_SCRIPT = { text: 'Retries are configured per client.', chunkDelayMs: 2 };

export const TARGET_P99_VS_PORTKEY = 0.5;
export const TARGET_RPS_VS_PORTKEY = 2;
export const TARGET_P50_VS_BARE = 2;
export const TARGET_RECEIPTS_SHARE = 0.1;
export const TARGET_TTFT_MS = 1;

/** Toolgate with `RECEIPTS=off`: only there to measure what receipts cost. */
export const NO_RECEIPTS = 'tg receipts off';
/**
 * Toolgate with `SPOOL_FSYNC=request` (an fsync before every answer, not the default): measured
 * at concurrency 1 only, to show what that durability setting costs on this disk.
 */
export const FSYNC_PER_REQUEST = 'tg fsync=request';
