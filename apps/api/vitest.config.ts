import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'api',
    // One PostgreSQL server for the run (embedded, or DATABASE_URL); each test file creates
    // its own database on it, so files run in parallel without sharing data.
    globalSetup: ['../../packages/db/src/test-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
