import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'db',
    // One PostgreSQL server for the run; each test file creates its own database on it.
    globalSetup: ['./src/test-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
