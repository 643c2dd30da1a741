import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OtelEnv } from './otel-env.ts';
import { tracingFromEnv } from './start-tracing.ts';
import { type OtlpReceiver, SPAN_KIND, startOtlpReceiver } from './testing/otlp-receiver.ts';
import { childOf, remoteParent, traceHeaders } from './trace-context.ts';

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());
beforeEach(() => receiver.clear());

const SCOPE = { name: 'toolgate-test', version: '0.1.0' };

async function tracing(env: Record<string, string>) {
  const started = await tracingFromEnv(OtelEnv.parse(env), SCOPE);
  if (started === undefined) throw new Error('tracing is off');
  return started;
}

describe.each([
  ['http/protobuf', 'application/x-protobuf'],
  ['http/json', 'application/json'],
])('exporting over OTLP %s', (protocol, contentType) => {
  it('sends the spans, their tree, attributes, events and status to the collector', async () => {
    const traced = await tracing({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=k%3D1',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
    });
    const root = traced.tracer.startSpan('root', { kind: SpanKind.SERVER });
    root.setAttributes({ 'a.string': 's', 'a.int': 42, 'a.bool': true, 'a.list': ['x', 'y'] });
    const child = traced.tracer.startSpan('child', { kind: SpanKind.CLIENT }, childOf(root));
    child.addEvent('happened', { why: 'because' });
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'broke' });
    child.end();
    root.end();
    await traced.shutdown();

    const spans = await receiver.waitFor((s) => s.length === 2);
    const byName = Object.fromEntries(spans.map((s) => [s.name, s]));
    expect(byName.child?.parentSpanId).toBe(byName.root?.spanId);
    expect(byName.child?.traceId).toBe(byName.root?.traceId);
    expect(byName.root?.parentSpanId).toBeUndefined();
    expect(byName.root).toMatchObject({
      kind: SPAN_KIND.server,
      attributes: { 'a.string': 's', 'a.int': 42, 'a.bool': true, 'a.list': ['x', 'y'] },
      resource: { 'service.name': 'toolgate-test', 'deployment.environment.name': 'test' },
      scope: 'toolgate-test',
    });
    expect(byName.child).toMatchObject({
      kind: SPAN_KIND.client,
      events: [{ name: 'happened', attributes: { why: 'because' } }],
      status: { code: 2, message: 'broke' },
    });
    expect(receiver.exports[0]?.contentType).toBe(contentType);
    expect(receiver.exports[0]?.headers['x-collector-key']).toBe('k=1');
  });
});

describe('sampling and propagation', () => {
  it('always_off exports nothing, yet still hands a traceparent on (not sampled)', async () => {
    const traced = await tracing({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_TRACES_SAMPLER: 'always_off',
    });
    const span = traced.tracer.startSpan('unsampled');
    expect(traceHeaders(span).traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    span.end();
    await traced.shutdown();
    expect(receiver.spans()).toEqual([]);
  });

  it('continues a trace from a valid traceparent and ignores a malformed one', async () => {
    const traced = await tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = remoteParent({ traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    const continued = traced.tracer.startSpan('continued', {}, parent);
    expect(traceHeaders(continued).traceparent).toMatch(
      new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`),
    );
    continued.end();
    const fresh = traced.tracer.startSpan('fresh', {}, remoteParent({ traceparent: 'garbage' }));
    fresh.end();
    const arrayHeader = traced.tracer.startSpan(
      'array',
      {},
      remoteParent({ traceparent: [`00-${traceId}-00f067aa0ba902b7-01`] }),
    );
    arrayHeader.end();
    const notText = traced.tracer.startSpan('json', {}, remoteParent({ traceparent: 42 }));
    notText.end();
    await traced.shutdown();
    const spans = await receiver.waitFor((s) => s.length === 4);
    const byName = Object.fromEntries(spans.map((s) => [s.name, s]));
    expect(byName.continued).toMatchObject({ traceId, parentSpanId: '00f067aa0ba902b7' });
    expect(byName.array).toMatchObject({ traceId, parentSpanId: '00f067aa0ba902b7' });
    expect(byName.fresh?.traceId).not.toBe(traceId);
    expect(byName.fresh?.parentSpanId).toBeUndefined();
    expect(byName.json?.parentSpanId).toBeUndefined();
  });

  it('gzips the export when asked', async () => {
    const traced = await tracing({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
    });
    traced.tracer.startSpan('zipped').end();
    await traced.shutdown();
    await receiver.waitFor((s) => s.length === 1);
    expect(receiver.exports[0]?.headers['content-encoding']).toBe('gzip');
  });
});
