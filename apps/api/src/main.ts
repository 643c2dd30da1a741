import { join } from 'node:path';
import { applyMigrations, resolveDatabaseUrl } from '@toolgate/db';
import { displayedUrl, startTracing, tracingSettings } from '@toolgate/telemetry';
import { createApp } from './create-app.ts';
import { parseEnv } from './env.ts';
import { BootstrapOperator } from './identities/bootstrap-operator.ts';
import { createLogger } from './logger.ts';
import { SeedService } from './resources/seed.service.ts';
import { installShutdown } from './shutdown.ts';

/**
 * `pnpm --filter @toolgate/api start`: PostgreSQL (DATABASE_URL, or embedded under DATA_DIR),
 * migrations, seed, then the API. Prints the first operator token once, on first start.
 */
const env = parseEnv(process.env);
const log = createLogger(env.LOG_LEVEL);
const progress = (line: string) => log.info(line);
// Off unless an OTLP endpoint (or OTEL_TRACES_EXPORTER=otlp) is set (docs/observability.md).
const tracingSetup = tracingSettings(env, 'toolgate-api');
const tracing = tracingSetup
  ? await startTracing(tracingSetup, { name: 'toolgate-api', version: '0.1.0' }, log)
  : undefined;
if (tracingSetup)
  progress(`tracing on: OTLP ${tracingSetup.protocol} to ${displayedUrl(tracingSetup.url)}`);

const database = await resolveDatabaseUrl({
  databaseUrl: env.DATABASE_URL,
  dataDir: join(env.DATA_DIR, 'postgres'),
  log: progress,
});
await applyMigrations(database.url, { log: progress });
const app = await createApp({
  databaseUrl: database.url,
  env,
  log,
  ...(tracing ? { tracer: tracing.tracer } : {}),
});
const seeded = await app.get(SeedService).ensureSeeded();
if (seeded > 0) progress(`seeded ${seeded} capability contracts and provider profiles`);
const token = await app.get(BootstrapOperator).ensureOperator();
await app.listen(env.PORT, env.HOST);
const url = await app.getUrl();

process.stdout.write(`\nToolgate API listening on ${url}  (reference: ${url}/docs)\n`);
if (token) {
  process.stdout.write(
    `First start: an operator identity "admin" was created. Its token (shown only now):\n\n  ${token}\n\n`,
  );
}

installShutdown({
  app,
  stopDatabase: database.stop,
  log,
  graceMs: env.SHUTDOWN_GRACE_MS,
  ...(tracing ? { flushTelemetry: () => tracing.shutdown() } : {}),
});
