import { join } from 'node:path';
import { createClient } from '@toolgate/contract';
import { displayedUrl, startTracing, tracingSettings } from '@toolgate/telemetry';
import { apiFetch } from './api-fetch.ts';
import { BundleStore } from './bundle/bundle-store.ts';
import { BundleSync } from './bundle/bundle-sync.ts';
import { ApprovalBook } from './calls/approval-book.ts';
import { ApprovalRequests } from './calls/approval-requests.ts';
import { ApprovalWatch } from './calls/approval-watch.ts';
import { CallGates } from './calls/call-gates.ts';
import { createGateway } from './create-gateway.ts';
import { parseGatewayEnv } from './env.ts';
import { httpExecutorRegistry } from './hosted/http-executors.ts';
import { createLogger } from './logger.ts';
import { McpProxy } from './mcp/mcp-proxy.ts';
import { McpReceipts } from './mcp/mcp-receipts.ts';
import { ObservationReporter } from './mcp/observation-reporter.ts';
import { createMetrics } from './metrics.ts';
import { Upstreams } from './proxy/upstream.ts';
import { DisabledReceipts, ReceiptRecorder } from './receipts/receipt-recorder.ts';
import type { SpooledReceipt } from './receipts/spooled-receipt.ts';
import { ReceiptShipper } from './shipping/receipt-shipper.ts';
import { Spool } from './spool/spool.ts';
import { GatewayTracing } from './tracing/gateway-tracing.ts';

const GATEWAY_VERSION = '0.1.0';

/**
 * The gateway process: last good bundle from disk (so it enforces policy even with the API
 * down), the receipt spool, policy sync and receipt shipping against the API, and the proxy.
 */
const env = parseGatewayEnv(process.env);
const log = createLogger(env.LOG_LEVEL);
const metrics = createMetrics();
// Off unless an OTLP endpoint (or OTEL_TRACES_EXPORTER=otlp) is set: then the SDK is loaded and
// every request gets its spans; otherwise nothing of it runs.
const tracingSetup = tracingSettings(env, 'toolgate-gateway');
const tracing = tracingSetup
  ? await startTracing(tracingSetup, { name: 'toolgate-gateway', version: GATEWAY_VERSION }, log)
  : undefined;
const traces = tracing ? new GatewayTracing(tracing.tracer, env.GATEWAY_NAME) : undefined;
if (tracingSetup) {
  log.info(`tracing on: OTLP ${tracingSetup.protocol} to ${displayedUrl(tracingSetup.url)}`);
}
const spool = await Spool.open<SpooledReceipt>({
  dir: join(env.DATA_DIR, 'spool'),
  maxBytes: env.SPOOL_MAX_BYTES,
  fullPolicy: env.SPOOL_FULL,
  fsync: env.SPOOL_FSYNC === 'request' ? 'batch' : 'interval',
  fsyncIntervalMs: env.SPOOL_FSYNC_INTERVAL_MS,
  minFreeBytes: env.SPOOL_MIN_FREE_BYTES,
  log,
});
// Named, so a bundle built for another gateway (misrouted, or served by a man in the middle) is
// refused rather than enforced.
const bundles = await BundleStore.open(join(env.DATA_DIR, 'bundle'), log, {
  gateway: env.GATEWAY_NAME,
});
const upstreams = new Upstreams({
  openaiBaseUrl: env.OPENAI_BASE_URL,
  anthropicBaseUrl: env.ANTHROPIC_BASE_URL,
  geminiBaseUrl: env.GEMINI_BASE_URL,
  openaiApiKey: env.OPENAI_API_KEY,
  anthropicApiKey: env.ANTHROPIC_API_KEY,
  geminiApiKey: env.GEMINI_API_KEY,
  timeoutMs: env.UPSTREAM_TIMEOUT_MS,
});
const client = createClient({
  baseUrl: env.API_URL,
  fetch: apiFetch(),
  ...(env.API_TOKEN ? { token: env.API_TOKEN } : {}),
});
const shipper = new ReceiptShipper({
  client,
  gateway: env.GATEWAY_NAME,
  spool,
  metrics,
  log,
  batchSize: env.SHIP_BATCH_SIZE,
  intervalMs: env.SHIP_INTERVAL_MS,
  maxBatchBytes: env.SHIP_MAX_BATCH_BYTES,
  dir: env.DATA_DIR,
});
// The quarantine's count and newest entries are in the first status report.
await shipper.loadQuarantine();
const sync = new BundleSync({
  client,
  gateway: env.GATEWAY_NAME,
  store: bundles,
  metrics,
  log,
  waitSeconds: env.SYNC_WAIT_SECONDS,
  spoolDepth: () => spool.stats().depth,
  spoolState: () => {
    const { full, diskFull, dropped, bytes } = spool.stats();
    const until = diskFull ? 'the disk has room' : 'receipts are shipped';
    const effect =
      env.SPOOL_FULL === 'reject'
        ? `agent requests are refused with 503 until ${until}`
        : `receipts are dropped until ${until} (${dropped} so far)`;
    const cause = diskFull
      ? `the spool's disk has less than ${env.SPOOL_MIN_FREE_BYTES} bytes free`
      : `${bytes} of ${env.SPOOL_MAX_BYTES} bytes unshipped`;
    return { full, dropped, detail: `${cause}: ${effect}` };
  },
  receiptQuarantine: () => shipper.quarantineSummary(),
  receiptChain: () => shipper.chainHead(),
});
// A full spool is reported at once (not at the next 30 s status report), and again when it
// has room; so is a receipt moved to the quarantine.
// Call-time rules: approvals come from a watch on the API, approval requests go to it, rate-limit
// buckets live here (per gateway: a fleet of N allows N× a limit, docs/policies.md).
const approvals = new ApprovalBook();
const approvalRequests = new ApprovalRequests({
  client,
  log,
  onDropped: () => metrics.approvalRequestsDropped.inc(),
});
const approvalWatch = new ApprovalWatch({
  client,
  apiUrl: env.API_URL,
  ...(env.API_TOKEN ? { token: env.API_TOKEN } : {}),
  book: approvals,
  log,
  onFailure: () => metrics.approvalSyncFailures.inc(),
});
setInterval(() => approvals.prune(), 60_000).unref();
let spoolWasFull = false;
let quarantined = shipper.quarantineSummary().count;
setInterval(() => {
  const { full } = spool.stats();
  const { count } = shipper.quarantineSummary();
  if (full === spoolWasFull && count === quarantined) return;
  spoolWasFull = full;
  quarantined = count;
  void sync.reportStatus();
}, 1000).unref();
const recorder = env.RECEIPTS === 'on' ? new ReceiptRecorder(spool) : new DisabledReceipts();
const calls = new CallGates({
  gateway: env.GATEWAY_NAME,
  book: approvals,
  requests: approvalRequests,
});
// MCP servers of the bundle at /mcp/<server>: the same policies, gates and receipt chain.
const observations = new ObservationReporter({ client, log });
const mcp = new McpProxy({
  bundles,
  receipts: new McpReceipts({ gateway: env.GATEWAY_NAME, recorder, metrics, log, now: Date.now }),
  metrics,
  log,
  calls,
  reporter: observations,
  // Header secrets (`secretRef.env`) are read from the gateway's environment when a session opens.
  secrets: process.env,
  ...(traces ? { tracing: traces } : {}),
  options: {
    idleMs: env.MCP_SESSION_IDLE_MS,
    maxSessions: env.MCP_MAX_SESSIONS,
    upstreamTimeoutMs: env.MCP_UPSTREAM_TIMEOUT_MS,
    bodyLimit: env.MCP_BODY_LIMIT,
    maxResponseBytes: env.MCP_MAX_RESPONSE_BYTES,
  },
});
// HostedTools of the bundle run here: each call POSTed to its endpoint (secretRef headers from
// the gateway's environment), the answer handed back to the model (docs/hosted-tools.md).
const hostedExecutors = httpExecutorRegistry(process.env);
const app = createGateway({
  gateway: env.GATEWAY_NAME,
  hostedExecutors,
  bundles,
  upstreams,
  recorder,
  metrics,
  log,
  bodyLimit: env.BODY_LIMIT,
  calls,
  mcp,
  ...(traces ? { tracing: traces } : {}),
  collect: () => {
    metrics.approvalsKnown.set(approvals.size);
    const stats = spool.stats();
    metrics.spoolDepth.set(stats.depth);
    metrics.spoolDropped.set(stats.dropped);
    metrics.spoolFull.set(stats.full ? 1 : 0);
    const active = bundles.current();
    if (active) metrics.bundleAgeSeconds.set((Date.now() - active.appliedAt.getTime()) / 1000);
  },
});
if (env.RECEIPTS === 'off') {
  log.warn(
    'RECEIPTS=off: this gateway records NO receipts (benchmarking only; never in production)',
  );
}
if (!env.API_TOKEN) log.warn('API_TOKEN is not set: policy sync and receipt shipping will fail');
sync.start();
shipper.start();
approvalWatch.start();
await app.listen({ port: env.PORT, host: env.HOST });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : env.PORT;
process.stdout.write(
  `\nToolgate gateway "${env.GATEWAY_NAME}" listening on http://${env.HOST}:${port}\n` +
    `  OpenAI-compatible:    http://${env.HOST}:${port}/v1  (set as your SDK's baseURL)\n` +
    `  Anthropic-compatible: http://${env.HOST}:${port}\n` +
    `  MCP servers:          http://${env.HOST}:${port}/mcp/<server>\n` +
    `  bundle: ${bundles.current()?.etag ?? 'none yet (waiting for the API)'}\n`,
);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info(`${signal}: shutting down`);
  await app.close();
  sync.stop();
  approvalRequests.stop();
  observations.stop();
  await approvalWatch.stop();
  await shipper.stop();
  await upstreams.close();
  await hostedExecutors.close();
  await spool.close();
  // The last spans (those of the requests that just finished) go out before the exit.
  await tracing?.shutdown().catch(() => {});
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
