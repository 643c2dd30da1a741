import { randomUUID } from 'node:crypto';
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

/** What goes over the channel: the change and who sent it, so its sender can skip the echo. */
interface ChangeMessage extends ChangeEvent {
  /** `<replica>:<sequence>`: unique per notification. */
  id: string;
}

/** Own changes delivered once whose second path (commit or echo) is still to come, at most. */
const MAX_UNPAIRED = 10_000;

/**
 * Fans committed changes out to every API replica through PostgreSQL LISTEN/NOTIFY: writers
 * call `notify` inside their transaction (delivered on commit, never for a rollback); each
 * replica keeps one listening connection and re-emits to in-process waiters (long-polling
 * gateways, watches). The connection is re-established after a database restart, and a
 * `reconnected` event tells waiters to re-check, since notifications may have been missed.
 *
 * The writing replica does not wait for its own NOTIFY: `committed(tx)` delivers the changes
 * of a transaction as soon as it has committed, so a read that follows a write on the same
 * replica sees it (the NOTIFY arrives on another connection, before or after); whichever of
 * the two comes second is skipped by the change's id.
 */
@Injectable()
export class ChangeNotifier implements OnModuleInit, OnApplicationShutdown {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  private client: pg.Client | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private readonly replica = randomUUID();
  private sequence = 0;
  /** Per open transaction, the changes it has announced (delivered once it commits). */
  private readonly pending = new WeakMap<Tx, ChangeMessage[]>();
  /** Own changes delivered by one of their two paths (commit, echo), the other still to come. */
  private readonly deliveredOwn = new Set<string>();

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

  /** Queues a notification in the caller's transaction (sent, and delivered here, on commit). */
  async notify(tx: Tx, change: ChangeEvent): Promise<void> {
    const message: ChangeMessage = { ...change, id: `${this.replica}:${++this.sequence}` };
    await tx.$executeRaw`SELECT pg_notify(${CHANGES_CHANNEL}, ${JSON.stringify(message)})`;
    const queued = this.pending.get(tx);
    if (queued) queued.push(message);
    else this.pending.set(tx, [message]);
  }

  /** Delivers to this replica's waiters what `tx` announced, once it has committed. */
  committed(tx: Tx): void {
    const messages = this.pending.get(tx);
    if (!messages) return;
    this.pending.delete(tx);
    for (const message of messages) this.deliverOwn(message);
  }

  /**
   * A change this replica announced, delivered by whichever comes first: its transaction's
   * commit returning here, or its NOTIFY echo (it can overtake the commit's answer).
   */
  private deliverOwn({ id, ...change }: ChangeMessage): void {
    if (this.deliveredOwn.delete(id)) return;
    this.deliveredOwn.add(id);
    if (this.deliveredOwn.size > MAX_UNPAIRED) {
      // The oldest's echo is overdue (the listener is down or lagging): stop waiting for it.
      this.deliveredOwn.delete(this.deliveredOwn.values().next().value as string);
    }
    this.emitter.emit('change', change);
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
      let change: ChangeMessage;
      try {
        change = JSON.parse(message.payload) as ChangeMessage;
      } catch {
        return; // Not ours: ignore.
      }
      if (typeof change.id === 'string' && change.id.startsWith(`${this.replica}:`)) {
        this.deliverOwn(change);
        return;
      }
      const { id: _id, ...event } = change;
      this.emitter.emit('change', event);
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
      if (!this.client) return;
      // Echoes lost with the old connection never come; waiters re-check everything anyway.
      this.deliveredOwn.clear();
      this.emitter.emit('change', undefined);
    }, 500);
  }
}
