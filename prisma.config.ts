import { defineConfig } from 'prisma/config';

/**
 * Prisma CLI configuration (Prisma 7 no longer reads the URL from schema.prisma).
 *
 * The datasource is set only when DATABASE_URL is present, so `prisma generate` works on a
 * machine with no database at all; `prisma migrate deploy` and friends need it set. This file
 * is read by the Prisma CLI only: the apps get their URL from their own `Env`.
 */
const url = process.env.DATABASE_URL;

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  ...(url ? { datasource: { url } } : {}),
});
