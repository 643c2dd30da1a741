import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { prismaSchemaSql } from './prisma-schema-sql.ts';
import { diffSchemas, schemaFromDatabase, schemaFromPrisma } from './schema-drift.ts';
import { createTestDatabase, type TestDatabase } from './testing.ts';

const SCHEMA_FILE = fileURLToPath(new URL('../../../prisma/schema.prisma', import.meta.url));
const adminUrl = inject('databaseAdminUrl');
let schemaText: string;
const databases: TestDatabase[] = [];

beforeAll(async () => {
  schemaText = await readFile(SCHEMA_FILE, 'utf8');
});
afterAll(() => Promise.all(databases.map((database) => database.drop())));

async function migratedDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase(adminUrl);
  databases.push(database);
  return database;
}

async function execute(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('schema drift', () => {
  it('the migrated database matches prisma/schema.prisma', async () => {
    const database = await migratedDatabase();

    const differences = diffSchemas(
      schemaFromPrisma(schemaText),
      await schemaFromDatabase(database.url),
    );

    expect(
      differences,
      'The migrations do not produce what prisma/schema.prisma describes. Fix the SQL in ' +
        'prisma/migrations (add a new migration; never edit an applied one):\n' +
        differences.join('\n'),
    ).toEqual([]);
  });

  it("builds the same database as Prisma's own schema engine does from schema.prisma", async () => {
    const fromMigrations = await migratedDatabase();
    const fromPrisma = await createTestDatabase(adminUrl, { migrate: false });
    databases.push(fromPrisma);
    await execute(fromPrisma.url, await prismaSchemaSql(schemaText, fromPrisma.url));

    // Independent of schemaFromPrisma's type and default mapping: database against database.
    // Prisma's engine never partitions; the test above checks partitioning against schema.prisma.
    const differences = diffSchemas(
      await schemaFromDatabase(fromPrisma.url),
      await schemaFromDatabase(fromMigrations.url),
      { ignorePartitioning: true },
    );

    expect(
      differences,
      `The migrations differ from what Prisma generates for schema.prisma:\n${differences.join('\n')}`,
    ).toEqual([]);
  });

  it('reports, in words, every kind of difference a hand-written migration could introduce', async () => {
    const database = await migratedDatabase();
    await execute(
      database.url,
      `ALTER TABLE receipts ADD COLUMN extra text;
       DROP INDEX receipts_tools_idx;
       CREATE INDEX receipts_tools_idx ON receipts (tools);
       DROP INDEX receipts_received_at_id_idx;
       CREATE INDEX receipts_received_at_id_idx ON receipts (received_at, id DESC);
       DROP INDEX api_tokens_token_hash_key;
       ALTER TABLE audit_log ALTER COLUMN actor DROP NOT NULL;
       ALTER TABLE resources ALTER COLUMN labels DROP DEFAULT;
       ALTER TABLE tool_schemas ALTER COLUMN created_at TYPE timestamp(3);
       ALTER TABLE policy_revisions DROP COLUMN author;
       CREATE TABLE stray (id int PRIMARY KEY);`,
    );

    const differences = diffSchemas(
      schemaFromPrisma(schemaText),
      await schemaFromDatabase(database.url),
    );

    expect(differences.sort()).toEqual(
      [
        'table receipts (model Receipt): unexpected column extra text',
        'table receipts (model Receipt): index receipts_tools_idx USING btree (tools), schema.prisma wants index receipts_tools_idx USING gin (tools)',
        'table receipts (model Receipt): index receipts_received_at_id_idx USING btree (received_at, id DESC), schema.prisma wants index receipts_received_at_id_idx USING btree (received_at DESC, id DESC)',
        'table api_tokens (model ApiToken): missing unique index api_tokens_token_hash_key USING btree (token_hash)',
        'table audit_log (model AuditEntry), column actor (field actor): is nullable, schema.prisma wants NOT NULL',
        "table resources (model Resource), column labels (field labels): default is none, schema.prisma wants '{}'::jsonb",
        'table tool_schemas (model ToolSchema), column created_at (field createdAt): type is timestamp(3) without time zone, schema.prisma wants timestamp(3) with time zone',
        'table policy_revisions (model PolicyRevision), column author (field author): missing from the database',
        'table stray: in the database but not in schema.prisma',
      ].sort(),
    );
  });

  it('reports a schema.prisma change that has no migration yet', async () => {
    const database = await migratedDatabase();
    const edited = schemaText.replace(
      '@@index([policies], type: Gin)',
      '@@index([policies], type: Gin)\n  @@index([outcome, receivedAt(sort: Desc)])',
    );

    const differences = diffSchemas(
      schemaFromPrisma(edited),
      await schemaFromDatabase(database.url),
    );

    expect(differences).toEqual([
      'table receipts (model Receipt): missing index receipts_outcome_received_at_idx USING btree (outcome, received_at DESC)',
    ]);
  });

  it("reports partitioning that differs from schema.prisma's @partitioned line", async () => {
    const database = await migratedDatabase();
    const actual = await schemaFromDatabase(database.url);
    const marker = '/// @partitioned RANGE (received_at)';
    expect(schemaText).toContain(marker);

    expect(
      diffSchemas(
        schemaFromPrisma(schemaText.replace(marker, '/// @partitioned RANGE (ingested_at)')),
        actual,
      ),
    ).toEqual([
      'table receipts (model Receipt): partitioned by RANGE (received_at), schema.prisma wants partitioned by RANGE (ingested_at)',
    ]);
    expect(diffSchemas(schemaFromPrisma(schemaText.replace(marker, '')), actual)).toEqual([
      'table receipts (model Receipt): partitioned by RANGE (received_at), schema.prisma wants no partitioning',
    ]);
  });
});
