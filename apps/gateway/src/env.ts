import { OtelEnv } from '@toolgate/telemetry';
import { z } from 'zod';

const Url = z.string().url();

/**
 * The gateway's configuration: parsed once at boot; nothing else reads process.env. The standard
 * OTEL_* variables (tracing: off unless an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp is set) are
 * part of it: docs/observability.md.
 */
export const GatewayEnv = z.object({
  ...OtelEnv.shape,
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  /** This gateway's name: the `Gateway` resource it syncs as. */
  GATEWAY_NAME: z.string().min(1).default('local'),
  /** The control-plane API, and this gateway's token (role `gateway`). */
  API_URL: Url.default('http://127.0.0.1:8080'),
  API_TOKEN: z.string().min(1).optional(),
  /** Upstream providers; real ones by default, the mock for demos and tests. */
  OPENAI_BASE_URL: Url.default('https://api.openai.com'),
  ANTHROPIC_BASE_URL: Url.default('https://api.anthropic.com'),
  GEMINI_BASE_URL: Url.default('https://generativelanguage.googleapis.com'),
  /** Upstream keys; when unset, the agent's own key is passed through. Never logged. */
  OPENAI_API_KEY: z.string().min(1).optional(),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  /** Sent as `x-goog-api-key`; else the agent's (`x-goog-api-key` header or `?key=`). */
  GEMINI_API_KEY: z.string().min(1).optional(),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).default(120_000),
  /** Spool and the last good bundle live here. */
  DATA_DIR: z.string().default('.data/gateway'),
  SPOOL_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(512 * 1024 * 1024),
  /**
   * When a receipt is fsynced. `interval` (default): written to the spool before the agent's
   * response completes (survives any crash of the gateway, `kill -9` included) and fsynced
   * within SPOOL_FSYNC_INTERVAL_MS (group commit) — a power loss or kernel crash can lose that
   * window. `request`: fsynced before the response completes (concurrent requests share one
   * fsync) — survives a power loss, at the disk's fsync latency on every request. Either way a
   * receipt is never shipped before its fsync. See docs/gateway.md, "Durability".
   */
  SPOOL_FSYNC: z.enum(['request', 'interval']).default('interval'),
  SPOOL_FSYNC_INTERVAL_MS: z.coerce.number().int().min(1).max(1000).default(10),
  /**
   * Free space kept on the spool's disk: below it the spool counts as full (SPOOL_FULL applies,
   * status and metrics say why) instead of failing writes. 0 turns the check off.
   */
  SPOOL_MIN_FREE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(64 * 1024 * 1024),
  /** What a full spool does: refuse requests (nothing lost, the default) or count drops. */
  SPOOL_FULL: z.enum(['reject', 'drop']).default('reject'),
  /**
   * `off` records no receipts at all — only for measuring what receipts cost (`pnpm bench`);
   * the gateway warns at start. Never run a production gateway with it.
   */
  RECEIPTS: z.enum(['on', 'off']).default('on'),
  /** Receipts per ingest request; each is spliced from the spool as stored (no re-serializing). */
  SHIP_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
  SHIP_INTERVAL_MS: z.coerce.number().int().min(10).default(1000),
  /**
   * Largest receipt batch body sent to the API, in bytes: keep it at most the API's BODY_LIMIT
   * (8 MiB by default). A receipt that cannot ship even alone within it is quarantined.
   */
  SHIP_MAX_BATCH_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(8 * 1024 * 1024),
  SYNC_WAIT_SECONDS: z.coerce.number().int().min(0).max(60).default(30),
  BODY_LIMIT: z.coerce
    .number()
    .int()
    .min(1024)
    .default(16 * 1024 * 1024),
  /** MCP sessions (`/mcp/<server>`) unused for this long are closed; the agent re-initializes. */
  MCP_SESSION_IDLE_MS: z.coerce.number().int().min(1000).default(600_000),
  /** Most MCP sessions open at once (each holds an upstream session); past it new ones get 503. */
  MCP_MAX_SESSIONS: z.coerce.number().int().min(1).default(1000),
  /** Each request to an upstream MCP server (connect, tools/list, tools/call) gives up after this. */
  MCP_UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  /** Largest MCP request body from an agent, and largest upstream answer to one request. */
  MCP_BODY_LIMIT: z.coerce
    .number()
    .int()
    .min(1024)
    .default(4 * 1024 * 1024),
  MCP_MAX_RESPONSE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(16 * 1024 * 1024),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
export type GatewayEnv = z.infer<typeof GatewayEnv>;

/** Parses the environment or fails with a readable list of what is wrong. */
export function parseGatewayEnv(env: NodeJS.ProcessEnv): GatewayEnv {
  const result = GatewayEnv.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  throw new Error(`invalid environment:\n${lines.join('\n')}`);
}
