import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'gateway',
    // One PostgreSQL server for the run (embedded, or DATABASE_URL): the sync and shipping tests
    // run a real API on their own database of it.
    globalSetup: ['../../packages/db/src/test-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
