import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'e2e',
    include: ['browser/**/*.test.ts', 'stack/**/*.test.ts'],
    // One PostgreSQL server for the run; the console is built once before any file starts.
    globalSetup: ['../packages/db/src/test-global-setup.ts', './browser/support/build-console.ts'],
    testTimeout: 90_000,
    hookTimeout: 180_000,
  },
});
