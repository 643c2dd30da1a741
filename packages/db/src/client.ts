import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client.ts';

// Row types are `Prisma.ResourceModel`, `Prisma.ReceiptModel`, …
export { Prisma, PrismaClient } from './generated/prisma/client.ts';

/**
 * A Prisma client over node-postgres (`@prisma/adapter-pg`). Prisma 7 runs its query compiler
 * as WebAssembly in-process, so no engine binary is needed at run time. Only repositories in
 * the apps should call this: Prisma types stay out of services (STYLE habit 4).
 */
export function createPrismaClient(databaseUrl: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
}
