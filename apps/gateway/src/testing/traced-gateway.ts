import { type Tracing, tracingFromEnv } from '@toolgate/telemetry';
import type { OtlpReceiver, ReceivedSpan } from '@toolgate/telemetry/testing';
import { parseGatewayEnv } from '../env.ts';
import { GatewayTracing } from '../tracing/gateway-tracing.ts';
import { startTestGateway, type TestGateway } from './test-gateway.ts';

export interface TracedGateway extends TestGateway {
  tracing: Tracing;
}

/**
 * A test gateway whose tracing is set up as `main.ts` sets it up, from OTEL_* variables parsed
 * by the gateway's Env: exporting to `receiver` (http/protobuf unless `env` says otherwise),
 * batches sent every 20 ms.
 */
export async function startTracedGateway(
  receiver: OtlpReceiver,
  options: Parameters<typeof startTestGateway>[0] = {},
  env: Record<string, string> = {},
): Promise<TracedGateway> {
  const parsed = parseGatewayEnv({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '20',
    ...env,
  });
  const tracing = await tracingFromEnv(parsed, { name: 'toolgate-gateway', version: 'test' });
  if (tracing === undefined) throw new Error('tracing is off for this environment');
  const gateway = await startTestGateway({
    ...options,
    tracing: new GatewayTracing(tracing.tracer, 'test-gw'),
  });
  return {
    ...gateway,
    tracing,
    async close() {
      await gateway.close();
      await tracing.shutdown();
    },
  };
}

/**
 * Waits until the receiver holds every one of `names` in the trace, then gives the trace as
 * `spansOf` does. A test names each span it reads: spans end (and are exported) in their own
 * order, so a span that has arrived says nothing of its parent or siblings.
 */
export async function receivedTrace(
  receiver: OtlpReceiver,
  traceId: string,
  ...names: string[]
): Promise<ReturnType<typeof spansOf>> {
  const spans = await receiver.waitFor((all) =>
    names.every((name) => all.some((s) => s.traceId === traceId && s.name === name)),
  );
  return spansOf(spans, traceId);
}

/**
 * `receivedTrace`, then the gateway's tracing flushed: every span that had ended is exported
 * too, so a test can assert on what is *not* in the trace.
 */
export async function settledTrace(
  gateway: TracedGateway,
  receiver: OtlpReceiver,
  traceId: string,
  ...names: string[]
): Promise<ReturnType<typeof spansOf>> {
  await receivedTrace(receiver, traceId, ...names);
  await gateway.tracing.flush();
  return spansOf(receiver.spans(), traceId);
}

/** A trace's spans by name (the first of each name), and its children of a span. */
export function spansOf(spans: ReceivedSpan[], traceId: string) {
  const trace = spans.filter((span) => span.traceId === traceId);
  const named = (name: string) => {
    const span = trace.find((s) => s.name === name);
    if (span === undefined) {
      throw new Error(
        `no span "${name}" in trace ${traceId}: ${trace.map((s) => s.name).join(', ')}`,
      );
    }
    return span;
  };
  const children = (parent: ReceivedSpan) =>
    trace
      .filter((s) => s.parentSpanId === parent.spanId)
      .map((s) => s.name)
      .sort();
  return { trace, named, children };
}

/** A W3C `traceparent` an agent might send: a fresh trace id and span id, sampled. */
export function agentTraceparent(): { traceId: string; spanId: string; header: string } {
  const hex = (bytes: number) =>
    Array.from({ length: bytes }, () =>
      Math.floor(Math.random() * 256)
        .toString(16)
        .padStart(2, '0'),
    ).join('');
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` };
}
