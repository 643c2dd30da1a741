import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { createPrismaClient, type PrismaClient } from '@toolgate/db';
import { DATABASE_URL } from './database.tokens.ts';

/** The one PrismaClient of the process. Only repositories use it. */
@Injectable()
export class PrismaService implements OnApplicationShutdown {
  readonly client: PrismaClient;

  constructor(@Inject(DATABASE_URL) databaseUrl: string) {
    this.client = createPrismaClient(databaseUrl);
  }

  /** After the HTTP server has closed: requests in flight during shutdown still query. */
  async onApplicationShutdown(): Promise<void> {
    await this.client.$disconnect();
  }
}

/** A transaction client, as handed to repositories inside `$transaction`. */
export type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];
