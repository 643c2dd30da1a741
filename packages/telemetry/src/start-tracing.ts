import { DiagLogLevel, diag, type Tracer } from '@opentelemetry/api';
import type { Sampler, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { OtelEnv } from './otel-env.ts';
import { type TracingSettings, tracingSettings } from './tracing-settings.ts';

/** The tracer of a process whose tracing is on, and its lifecycle. */
export interface Tracing {
  readonly tracer: Tracer;
  /** Exports every span ended so far (tests, and before a planned exit). */
  flush(): Promise<void>;
  /** Exports what is left, then stops: spans started afterwards are dropped. */
  shutdown(): Promise<void>;
}

/** Where the SDK's own complaints (a collector unreachable, an export refused) go. */
export interface DiagnosticsLog {
  warn(message: string): void;
}

/**
 * The OpenTelemetry SDK set up from `settings`: a tracer provider of its own (never registered
 * globally: the code that creates spans is handed this tracer and passes parents explicitly, so
 * no context manager runs on any request), the sampler, a batch span processor and the OTLP/HTTP
 * exporter of the protocol. The SDK's modules are loaded here, only when tracing is on.
 */
export async function startTracing(
  settings: TracingSettings,
  scope: { name: string; version: string },
  log?: DiagnosticsLog,
): Promise<Tracing> {
  const [{ BasicTracerProvider, BatchSpanProcessor }, { resourceFromAttributes }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/resources'),
    ]);
  if (log) {
    // The SDK reports export failures through `diag`; without a logger they vanish.
    const warn = (message: string, ...args: unknown[]) =>
      log.warn(`opentelemetry: ${[message, ...args.map(describe)].join(' ')}`);
    diag.setLogger(
      { error: warn, warn, info: () => {}, debug: () => {}, verbose: () => {} },
      { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
    );
  }
  const exporter = await createExporter(settings);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(settings.resource),
    sampler: await createSampler(settings.sampler),
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        scheduledDelayMillis: settings.batch.scheduleDelayMs,
        exportTimeoutMillis: settings.batch.exportTimeoutMs,
        maxQueueSize: settings.batch.maxQueueSize,
        maxExportBatchSize: settings.batch.maxBatchSize,
      }),
    ],
  });
  return {
    tracer: provider.getTracer(scope.name, scope.version),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/**
 * The process's tracing as its OTEL_* variables say, or undefined when they leave it off (the
 * default: `tracingSettings`). `service` names the process (`service.name` unless
 * `OTEL_SERVICE_NAME` says otherwise) and its instrumentation scope.
 */
export async function tracingFromEnv(
  env: OtelEnv,
  service: { name: string; version: string },
  log?: DiagnosticsLog,
): Promise<Tracing | undefined> {
  const settings = tracingSettings(env, service.name);
  return settings ? startTracing(settings, service, log) : undefined;
}

async function createExporter(settings: TracingSettings): Promise<SpanExporter> {
  const config = {
    url: settings.url,
    headers: settings.headers,
    timeoutMillis: settings.timeoutMs,
    // The exporter's CompressionAlgorithm enum has these very values.
    compression: settings.compression as never,
  };
  if (settings.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter(config);
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter(config);
}

async function createSampler(sampler: TracingSettings['sampler']): Promise<Sampler> {
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } =
    await import('@opentelemetry/sdk-trace-base');
  switch (sampler.name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(sampler.ratio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(sampler.ratio) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
