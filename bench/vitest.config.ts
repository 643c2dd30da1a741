import { defineProject } from 'vitest/config';

// Unit tests of the benchmarks' own logic; the benchmarks themselves run with `pnpm bench`.
export default defineProject({
  test: { name: 'bench', include: ['*.test.ts'] },
});
