import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client.ts';

// Row types are `Prisma.ResourceModel`, `Prisma.ReceiptModel`, …
export { Prisma, PrismaClient } from './generated/prisma/client.ts';

/**
 * A Prisma client over node-postgres (`@prisma/adapter-pg`). Prisma 7 runs its query compiler
 * as WebAssembly in-process, so no engine binary is needed at run time. Only repositories in
 * the apps should call this: Prisma types stay out of services (STYLE habit 4).
 */
export function createPrismaClient(databaseUrl: string): PrismaClient {
  return createDatabaseClients(databaseUrl).prisma;
}

/** A Prisma client and the node-postgres pool under it: one set of connections for both. */
export interface DatabaseClients {
  prisma: PrismaClient;
  /**
   * For the few statements where Prisma's raw-query path is the bottleneck (the receipt batch
   * insert: megabytes of parameters, which Prisma hands through its WebAssembly query compiler
   * before node-postgres sees them). Ended by `prisma.$disconnect()`.
   */
  pool: pg.Pool;
}

export function createDatabaseClients(databaseUrl: string): DatabaseClients {
  const pool = new pg.Pool({ connectionString: databaseUrl });
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  return { prisma, pool };
}
