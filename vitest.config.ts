import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Every package and app is its own project; tests sit next to the code they test.
    projects: ['packages/*', 'apps/*', 'bench', 'deploy', 'e2e', 'scripts'],
  },
});
