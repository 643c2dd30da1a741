import { OtelEnv } from '@toolgate/telemetry';
import { z } from 'zod';

/**
 * The API's configuration: parsed once at boot; nothing else reads process.env. The standard
 * OTEL_* variables (tracing: off unless an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp is set) are
 * part of it: docs/observability.md.
 */
export const ApiEnv = z.object({
  ...OtelEnv.shape,
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** PostgreSQL; an embedded one under DATA_DIR when unset. */
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Largest accepted request body, in bytes (receipt batches are the big ones). */
  BODY_LIMIT: z.coerce
    .number()
    .int()
    .min(1024)
    .default(8 * 1024 * 1024),
  /** Token issuing, per client: this many requests at once… */
  TOKEN_RATE_BURST: z.coerce.number().int().min(1).default(10),
  /** …then this many per minute (429 with Retry-After past it). */
  TOKEN_RATE_PER_MINUTE: z.coerce.number().positive().default(10),
  /** How many watch events are kept for replay; older resourceVersions answer 410 Gone. */
  WATCH_HISTORY: z.coerce.number().int().min(100).default(10_000),
  /** How often each replica marks approvals past `expiresAt` as Expired, in ms. */
  APPROVAL_SWEEP_INTERVAL_MS: z.coerce.number().int().min(50).default(2_000),
  /** How long an expired approval is kept before it is deleted, in ms (0: kept forever). */
  APPROVAL_RETENTION_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(30 * 24 * 3600 * 1000),
  /** On SIGTERM/SIGINT/SIGHUP, how long requests in flight may take before being cut, in ms. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
});
export type ApiEnv = z.infer<typeof ApiEnv>;

/** Parses the environment or exits with a readable list of what is wrong. */
export function parseEnv(env: NodeJS.ProcessEnv): ApiEnv {
  const result = ApiEnv.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  throw new Error(`invalid environment:\n${lines.join('\n')}`);
}
