import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'deploy',
    // Each test renders the chart with the real Helm binary (a few hundred ms per render).
    testTimeout: 60_000,
  },
});
