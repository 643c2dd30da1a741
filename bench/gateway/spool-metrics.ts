import { setTimeout as sleep } from 'node:timers/promises';
import type { ReceiptCounters } from './report.ts';

const SPOOL_DRAIN_MS = 20_000;

/** The sum of a metric's samples in a gateway's `/metrics` (undefined when it has none). */
export async function metricValue(gatewayUrl: string, name: string): Promise<number | undefined> {
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
export async function drainSpool(gatewayUrl: string): Promise<string | undefined> {
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

/** `requestsMetric`: the LLM surfaces' request counter by default; the MCP bench names its own. */
export async function receiptCounters(
  gatewayUrl: string,
  requestsMetric = 'toolgate_gateway_requests_total',
): Promise<ReceiptCounters> {
  return {
    requests: (await metricValue(gatewayUrl, requestsMetric)) ?? 0,
    shipped: (await metricValue(gatewayUrl, 'toolgate_gateway_shipped_receipts_total')) ?? 0,
    depth: (await metricValue(gatewayUrl, 'toolgate_gateway_spool_depth')) ?? 0,
    dropped: (await metricValue(gatewayUrl, 'toolgate_gateway_spool_dropped')) ?? 0,
  };
}
