export {
  createDatabaseClients,
  createPrismaClient,
  type DatabaseClients,
  Prisma,
  PrismaClient,
} from './client.ts';
export {
  EMBEDDED_DATABASE,
  type EmbeddedPostgresHandle,
  findFreePort,
  postgresScratchDir,
  type ResolveDatabaseUrlOptions,
  resolveDatabaseUrl,
  type StartEmbeddedPostgresOptions,
  startEmbeddedPostgres,
  takeOverShutdownSignals,
} from './embedded-postgres.ts';
export {
  type ApplyMigrationsOptions,
  type ApplyMigrationsResult,
  applyMigrations,
  MIGRATIONS_DIR,
  type MigrationFile,
  migrationChecksum,
  readMigrations,
} from './migrations.ts';
export {
  ensureReceiptPartitions,
  partitionName,
  RECEIPTS_DEFAULT_PARTITION,
  type ReceiptPartitionsReport,
} from './receipt-partitions.ts';
