import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'cli',
    // One PostgreSQL server for the run (embedded, or DATABASE_URL): the command tests run a
    // real API on their own database of it.
    globalSetup: ['../../packages/db/src/test-global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
