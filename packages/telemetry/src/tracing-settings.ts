import { parseKeyPairsIntoRecord } from '@opentelemetry/core';
import type { OtelEnv, TracesSampler } from './otel-env.ts';

/** Where and how spans are exported, resolved from the OTEL_* variables. */
export interface TracingSettings {
  /** The OTLP/HTTP traces URL. */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  /** Sent with every export; never logged. */
  headers: Record<string, string>;
  timeoutMs: number;
  compression: 'gzip' | 'none';
  /** `service.name` and the other resource attributes. */
  resource: Record<string, string>;
  sampler: { name: TracesSampler; ratio: number };
  batch: {
    scheduleDelayMs: number;
    exportTimeoutMs: number;
    maxQueueSize: number;
    maxBatchSize: number;
  };
}

export const DEFAULT_TRACES_URL = 'http://localhost:4318/v1/traces';

/**
 * Whether tracing is on, and its settings: off (undefined) unless `OTEL_TRACES_EXPORTER` says
 * `otlp` or an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); always off with `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none`. The SDK's own default would export to localhost whenever it is
 * loaded: a gateway that nobody asked to trace must not build a span.
 */
export function tracingSettings(env: OtelEnv, serviceName: string): TracingSettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (exporters.includes('none')) return undefined;
  const endpoint =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? signalUrl(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (!exporters.includes('otlp') && endpoint === undefined) return undefined;
  const protocol =
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  const resource = parseKeyPairsIntoRecord(env.OTEL_RESOURCE_ATTRIBUTES);
  resource['service.name'] = env.OTEL_SERVICE_NAME ?? resource['service.name'] ?? serviceName;
  return {
    url: endpoint ?? DEFAULT_TRACES_URL,
    protocol,
    headers: {
      ...parseKeyPairsIntoRecord(env.OTEL_EXPORTER_OTLP_HEADERS),
      ...parseKeyPairsIntoRecord(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
    },
    timeoutMs: env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT ?? 10_000,
    compression:
      env.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION ?? env.OTEL_EXPORTER_OTLP_COMPRESSION ?? 'none',
    resource,
    sampler: {
      name: env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on',
      ratio: env.OTEL_TRACES_SAMPLER_ARG ?? 1,
    },
    batch: {
      scheduleDelayMs: env.OTEL_BSP_SCHEDULE_DELAY ?? 5000,
      exportTimeoutMs: env.OTEL_BSP_EXPORT_TIMEOUT ?? 30_000,
      maxQueueSize: env.OTEL_BSP_MAX_QUEUE_SIZE ?? 2048,
      maxBatchSize: Math.min(
        env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE ?? 512,
        env.OTEL_BSP_MAX_QUEUE_SIZE ?? 2048,
      ),
    },
  };
}

/** `OTEL_EXPORTER_OTLP_ENDPOINT` is a base: the traces path is appended to it. */
function signalUrl(base: string | undefined): string | undefined {
  if (base === undefined) return undefined;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/** The URL as it may be shown in a log line: no user info, no query. */
export function displayedUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}
