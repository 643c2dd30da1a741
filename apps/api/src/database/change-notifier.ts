import { EventEmitter } from 'node:events';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import type { Logger } from 'pino';
import { DATABASE_URL, LOGGER } from './database.tokens.ts';
import type { Tx } from './prisma.service.ts';

/** What every committed write announces: enough for waiters to know whether to look again. */
export interface ChangeEvent {
  kind: string;
  name: string;
  resourceVersion: string;
}

export const CHANGES_CHANNEL = 'toolgate_changes';

/**
 * Fans committed changes out to every API replica through PostgreSQL LISTEN/NOTIFY: writers
 * call `notify` inside their transaction (delivered on commit, never for a rollback); each
 * replica keeps one listening connection and re-emits to in-process waiters (long-polling
 * gateways, watches). The connection is re-established after a database restart, and a
 * `reconnected` event tells waiters to re-check, since notifications may have been missed.
 */
@Injectable()
export class ChangeNotifier implements OnModuleInit, OnApplicationShutdown {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  private client: pg.Client | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    @Inject(DATABASE_URL) private readonly databaseUrl: string,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.connect(true);
  }

  /** After the HTTP server has closed (requests in flight during shutdown may still notify). */
  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.client?.end().catch(() => undefined);
  }

  /** Queues a notification in the caller's transaction. */
  async notify(tx: Tx, change: ChangeEvent): Promise<void> {
    await tx.$executeRaw`SELECT pg_notify(${CHANGES_CHANNEL}, ${JSON.stringify(change)})`;
  }

  /** Calls `listener` for every change (and with `undefined` after a reconnect). */
  subscribe(listener: (change: ChangeEvent | undefined) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }

  /** Connects and listens; at boot a failure is fatal, later it is retried. */
  private async connect(initial = false): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('notification', (message) => {
      if (message.channel !== CHANGES_CHANNEL || !message.payload) return;
      try {
        this.emitter.emit('change', JSON.parse(message.payload) as ChangeEvent);
      } catch {
        // Not ours: ignore.
      }
    });
    client.on('error', (error) => {
      // 57P01: the server is shutting down (e.g. embedded PostgreSQL stopping with us).
      const level = (error as { code?: string }).code === '57P01' ? 'info' : 'warn';
      this.log[level]({ err: error }, 'change listener lost its connection; reconnecting');
      this.scheduleReconnect();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
      this.client = client;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (initial) throw error;
      this.scheduleReconnect();
    }
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry) return;
    const old = this.client;
    this.client = undefined;
    void old?.end().catch(() => undefined);
    this.retry = setTimeout(async () => {
      this.retry = undefined;
      await this.connect();
      if (this.client) this.emitter.emit('change', undefined);
    }, 500);
  }
}
