/**
 * Prints the SQL that Prisma's schema engine generates for prisma/schema.prisma on an empty
 * database (`pnpm -s db:schema-sql`). Without the native engine there is no `prisma migrate dev`:
 * copy the statements for what you added into a new migration, in Prisma's exact naming and
 * formatting, then let the drift test check the result.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { prismaSchemaSql } from '../src/prisma-schema-sql.ts';
import { startTestPostgres } from '../src/testing.ts';

const schemaFile = fileURLToPath(new URL('../../../prisma/schema.prisma', import.meta.url));
// The engine only connects, it changes nothing; a throwaway cluster keeps .data/ out of it.
const server = await startTestPostgres();
try {
  process.stdout.write(await prismaSchemaSql(await readFile(schemaFile, 'utf8'), server.adminUrl));
} finally {
  await server.teardown();
}
