import { z } from 'zod';

/**
 * The standard OpenTelemetry environment variables Toolgate reads (the SDK's own names, as every
 * OpenTelemetry SDK documents them), as one zod object the apps' `Env` schemas extend: parsed at
 * boot with the rest, so a bad value fails the start with the others. An empty value counts as
 * unset, as the specification says.
 */
const unsetWhenEmpty = (value: unknown) => (value === '' ? undefined : value);
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess(unsetWhenEmpty, schema.optional());

const Milliseconds = z.coerce.number().int().min(0);
const Count = z.coerce.number().int().min(1);

/** `key=value,key2=value2`, values percent-encoded (headers, resource attributes). */
const KeyValueList = z.string().refine(
  (text) =>
    text
      .split(',')
      .map((item) => item.trim())
      .every((item) => item === '' || /^[^=\s]+\s*=/.test(item)),
  { message: 'must be a comma-separated list of key=value pairs' },
);

const Protocol = z.enum(['http/protobuf', 'http/json'], {
  error:
    'must be http/protobuf or http/json (grpc is not supported: a collector takes both on port 4318)',
});

/** A comma-separated list of exporter names: only `otlp` and `none` are known here. */
const Exporters = z.string().refine(
  (text) =>
    text
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .every((name) => name === '' || name === 'otlp' || name === 'none'),
  { message: 'must be otlp or none (the only trace exporters Toolgate has)' },
);

const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

export const OtelEnv = z.object({
  /** `true`: no telemetry at all, whatever else is set. */
  OTEL_SDK_DISABLED: optional(z.string()),
  /** `otlp` turns tracing on (to the default endpoint if none is set); `none` keeps it off. */
  OTEL_TRACES_EXPORTER: optional(Exporters),
  /** The collector's base URL: traces go to `<endpoint>/v1/traces`. Setting it turns tracing on. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optional(z.url()),
  /** The traces URL, used as it is. Setting it turns tracing on. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optional(z.url()),
  /** Headers sent with every export (`authorization=Bearer%20…`): never logged. */
  OTEL_EXPORTER_OTLP_HEADERS: optional(KeyValueList),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: optional(KeyValueList),
  /** `http/protobuf` (the default) or `http/json`. */
  OTEL_EXPORTER_OTLP_PROTOCOL: optional(Protocol),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: optional(Protocol),
  OTEL_EXPORTER_OTLP_TIMEOUT: optional(Milliseconds),
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: optional(Milliseconds),
  OTEL_EXPORTER_OTLP_COMPRESSION: optional(z.enum(['gzip', 'none'])),
  OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: optional(z.enum(['gzip', 'none'])),
  /** `service.name` of every span; the app's own name by default. */
  OTEL_SERVICE_NAME: optional(z.string()),
  /** More resource attributes (`deployment.environment.name=prod,k8s.pod.name=…`). */
  OTEL_RESOURCE_ATTRIBUTES: optional(KeyValueList),
  OTEL_TRACES_SAMPLER: optional(z.enum(SAMPLERS)),
  /** The ratio of the `*traceidratio` samplers, 0 to 1 (1 when unset). */
  OTEL_TRACES_SAMPLER_ARG: optional(z.coerce.number().min(0).max(1)),
  /** The batch span processor: delay between exports, export timeout, queue and batch sizes. */
  OTEL_BSP_SCHEDULE_DELAY: optional(Milliseconds),
  OTEL_BSP_EXPORT_TIMEOUT: optional(Milliseconds),
  OTEL_BSP_MAX_QUEUE_SIZE: optional(Count),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: optional(Count),
});
export type OtelEnv = z.infer<typeof OtelEnv>;

export type TracesSampler = (typeof SAMPLERS)[number];
