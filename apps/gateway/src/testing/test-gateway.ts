import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GatewayBundle } from '@toolgate/contract';
import {
  hashCanonical,
  MediationPolicySpec,
  type MediationPolicySpecInput,
  SEED_CAPABILITY_CONTRACTS,
  SEED_PROVIDER_PROFILES,
} from '@toolgate/core';
import { createMockProvider, type MockProvider } from '@toolgate/mock-provider';
import pino, { type Logger } from 'pino';
import { BundleStore } from '../bundle/bundle-store.ts';
import type { CallGates } from '../calls/call-gates.ts';
import { createGateway } from '../create-gateway.ts';
import type { HostedExecutorRegistry } from '../hosted/executor-registry.ts';
import { McpProxy, type McpProxyOptions } from '../mcp/mcp-proxy.ts';
import { McpReceipts } from '../mcp/mcp-receipts.ts';
import type { ObservationReporter } from '../mcp/observation-reporter.ts';
import type { SecretSource } from '../mcp/upstream-client.ts';
import { createMetrics, type GatewayMetrics } from '../metrics.ts';
import { Upstreams } from '../proxy/upstream.ts';
import { ReceiptRecorder, type ReceiptSink } from '../receipts/receipt-recorder.ts';
import type { SpooledReceipt } from '../receipts/spooled-receipt.ts';
import { Spool } from '../spool/spool.ts';
import type { GatewayTracing } from '../tracing/gateway-tracing.ts';

export interface TestGateway {
  url: string;
  mock: MockProvider;
  spool: Spool<SpooledReceipt>;
  bundles: BundleStore;
  metrics: GatewayMetrics;
  /** Applies a bundle holding these policies (and agent identities), as the API would send it. */
  applyPolicies(
    policies: Array<{ name: string; spec: MediationPolicySpecInput }>,
    identities?: GatewayBundle['identities'],
    mcpServers?: GatewayBundle['mcpServers'],
    hostedTools?: GatewayBundle['hostedTools'],
  ): Promise<void>;
  close(): Promise<void>;
}

/** A bundle as the API builds it: policies in merged order, seeded contracts and profiles. */
export function bundleOf(
  gateway: string,
  policies: Array<{ name: string; spec: MediationPolicySpecInput }>,
  identities: GatewayBundle['identities'] = [],
  mcpServers: GatewayBundle['mcpServers'] = [],
  hostedTools?: GatewayBundle['hostedTools'],
): { bundle: GatewayBundle; etag: string } {
  const parsed = policies.map((p) => ({ name: p.name, spec: MediationPolicySpec.parse(p.spec) }));
  parsed.sort((a, b) => b.spec.priority - a.spec.priority || (a.name < b.name ? -1 : 1));
  const bundle: GatewayBundle = {
    apiVersion: 'toolgate.dev/v1',
    kind: 'GatewayBundle',
    gateway,
    policies: parsed.map((p) => ({
      name: p.name,
      generation: 1,
      hash: hashCanonical(p.spec),
      spec: p.spec,
    })),
    identities,
    contracts: SEED_CAPABILITY_CONTRACTS.map((c) => c.spec),
    profiles: SEED_PROVIDER_PROFILES.map((p) => p.spec),
    mcpServers: [...mcpServers].sort((a, b) => (a.name < b.name ? -1 : 1)),
    // Absent when none, as the API sends it (bundles without hosted tools keep their ETag).
    ...(hostedTools ? { hostedTools } : {}),
  };
  return { bundle, etag: hashCanonical(bundle) };
}

/**
 * A real gateway (HTTP on a random port) in front of the real mock provider, with a real spool
 * in a temp dir. No API: bundles are applied directly, as the sync client would.
 */
export async function startTestGateway(
  options: {
    spoolMaxBytes?: number;
    upstreamUrl?: string;
    openaiApiKey?: string;
    geminiApiKey?: string;
    /** The gateway's logger; silent by default. */
    log?: Logger;
    /** Largest agent request (BODY_LIMIT); 16 MiB by default. */
    bodyLimit?: number;
    /** Where receipts go instead of the spool's recorder (a sink that fails, for fault tests). */
    recorder?: ReceiptSink;
    /** Approvals and rate-limit buckets for call-time rules. */
    calls?: CallGates;
    /** The MCP routes' settings, header secrets and observation reporter. */
    mcp?: Partial<McpProxyOptions> & { secrets?: SecretSource; reporter?: ObservationReporter };
    /** The request spans (tracing on); none by default, as with no OTEL_* variables set. */
    tracing?: GatewayTracing;
    anthropicApiKey?: string;
    /** Executors of HostedTool resources (the tool loop); none by default. */
    hostedExecutors?: HostedExecutorRegistry;
  } = {},
): Promise<TestGateway> {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-gateway-'));
  const log = options.log ?? pino({ level: 'silent' });
  const mock = await createMockProvider();
  const upstreamUrl = options.upstreamUrl ?? mock.url;
  const maxBytes = options.spoolMaxBytes ?? 64 * 1024 * 1024;
  const spool = await Spool.open<SpooledReceipt>({
    dir: join(dir, 'spool'),
    maxBytes,
    fullPolicy: 'reject',
  });
  const bundles = await BundleStore.open(join(dir, 'bundle'), log);
  const metrics = createMetrics();
  const upstreams = new Upstreams({
    openaiBaseUrl: upstreamUrl,
    anthropicBaseUrl: upstreamUrl,
    geminiBaseUrl: upstreamUrl,
    openaiApiKey: options.openaiApiKey,
    anthropicApiKey: options.anthropicApiKey,
    geminiApiKey: options.geminiApiKey,
    timeoutMs: 10_000,
  });
  const recorder = options.recorder ?? new ReceiptRecorder(spool);
  const { secrets, reporter, ...mcpOptions } = options.mcp ?? {};
  const mcp = new McpProxy({
    bundles,
    receipts: new McpReceipts({ gateway: 'test-gw', recorder, metrics, log, now: Date.now }),
    metrics,
    log,
    ...(options.calls ? { calls: options.calls } : {}),
    ...(reporter ? { reporter } : {}),
    ...(options.tracing ? { tracing: options.tracing } : {}),
    secrets: secrets ?? {},
    options: {
      idleMs: 600_000,
      maxSessions: 100,
      upstreamTimeoutMs: 5_000,
      bodyLimit: 4 * 1024 * 1024,
      maxResponseBytes: 16 * 1024 * 1024,
      ...mcpOptions,
    },
  });
  const app = createGateway({
    gateway: 'test-gw',
    bundles,
    upstreams,
    mcp,
    recorder,
    metrics,
    log,
    bodyLimit: options.bodyLimit ?? 16 * 1024 * 1024,
    ...(options.calls ? { calls: options.calls } : {}),
    ...(options.tracing ? { tracing: options.tracing } : {}),
    ...(options.hostedExecutors ? { hostedExecutors: options.hostedExecutors } : {}),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    mock,
    spool,
    bundles,
    metrics,
    async applyPolicies(policies, identities = [], mcpServers = [], hostedTools = undefined) {
      const { bundle, etag } = bundleOf('test-gw', policies, identities, mcpServers, hostedTools);
      await bundles.apply(bundle, etag);
    },
    async close() {
      await app.close();
      await upstreams.close();
      await spool.close();
      await mock.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
