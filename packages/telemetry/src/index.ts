/**
 * Toolgate's OpenTelemetry tracing, shared by the gateway and the API: the OTEL_* environment,
 * the rule that turns tracing on (off by default), the SDK set up from it, W3C trace context.
 * docs/observability.md.
 */
export { OtelEnv, type TracesSampler } from './otel-env.ts';
export {
  type DiagnosticsLog,
  startTracing,
  type Tracing,
  tracingFromEnv,
} from './start-tracing.ts';
export { childOf, remoteParent, traceHeaders } from './trace-context.ts';
export {
  DEFAULT_TRACES_URL,
  displayedUrl,
  type TracingSettings,
  tracingSettings,
} from './tracing-settings.ts';
