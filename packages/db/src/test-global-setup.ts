import type { TestProject } from 'vitest/node';
import { startTestPostgres } from './testing.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Maintenance URL of the run's PostgreSQL server: pass it to `createTestDatabase`. */
    databaseAdminUrl: string;
  }
}

/**
 * Vitest globalSetup: one PostgreSQL server per test run (embedded, or the run's DATABASE_URL),
 * shared with the test files through `inject('databaseAdminUrl')`. Copy this file and the
 * `globalSetup` line of vitest.config.ts into a package whose tests need a database.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Test wiring is the one place besides an app's Env that reads the environment.
  const server = await startTestPostgres({ databaseUrl: process.env.DATABASE_URL });
  project.provide('databaseAdminUrl', server.adminUrl);
  return server.teardown;
}
