import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { createPrismaClient, type PrismaClient } from '@toolgate/db';
import { DATABASE_URL } from './database.tokens.ts';

/** The one PrismaClient of the process. Only repositories use it. */
@Injectable()
export class PrismaService implements OnModuleDestroy {
  readonly client: PrismaClient;

  constructor(@Inject(DATABASE_URL) databaseUrl: string) {
    this.client = createPrismaClient(databaseUrl);
  }

  async onModuleDestroy(): Promise<void> {
    await this.client.$disconnect();
  }
}

/** A transaction client, as handed to repositories inside `$transaction`. */
export type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];
