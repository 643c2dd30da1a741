import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { createDatabaseClients, type PrismaClient } from '@toolgate/db';
import type pg from 'pg';
import { DATABASE_URL } from './database.tokens.ts';

/** The one PrismaClient of the process. Only repositories use it. */
@Injectable()
export class PrismaService implements OnApplicationShutdown {
  readonly client: PrismaClient;
  /**
   * The node-postgres pool under `client` (same connections), for statements that Prisma's
   * raw-query path makes slow: only the receipt batch insert uses it.
   */
  readonly pool: pg.Pool;

  constructor(@Inject(DATABASE_URL) databaseUrl: string) {
    ({ prisma: this.client, pool: this.pool } = createDatabaseClients(databaseUrl));
  }

  /** After the HTTP server has closed: requests in flight during shutdown still query. */
  async onApplicationShutdown(): Promise<void> {
    // Ends the pool too.
    await this.client.$disconnect();
  }
}

/** A transaction client, as handed to repositories inside `$transaction`. */
export type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];
