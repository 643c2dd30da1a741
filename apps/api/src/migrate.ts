import { applyMigrations } from '@toolgate/db';
import { parseEnv } from './env.ts';
import { createLogger } from './logger.ts';

/**
 * `pnpm --filter @toolgate/api migrate`: applies pending migrations to DATABASE_URL and exits —
 * what the API does at start, as a step of its own for deployments (the Helm chart's init
 * container and pre-upgrade Job). Safe to run alongside API replicas: the runner holds
 * PostgreSQL's advisory lock. Exit 0 when the schema is current, 1 otherwise.
 */
const env = parseEnv(process.env);
const log = createLogger(env.LOG_LEVEL);
if (!env.DATABASE_URL) {
  log.fatal('DATABASE_URL is not set: migrations need the PostgreSQL to migrate');
  process.exit(1);
}
try {
  const { applied } = await applyMigrations(env.DATABASE_URL, { log: (line) => log.info(line) });
  log.info(
    applied.length === 0
      ? 'migrations: the schema is up to date'
      : `migrations: ${applied.length} applied`,
  );
} catch (error) {
  log.fatal({ err: error }, 'migrations failed');
  process.exitCode = 1;
}
