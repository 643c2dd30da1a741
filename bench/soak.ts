import { runSoak } from './soak/run-soak.ts';

/**
 * `pnpm bench:soak`: the whole stack as processes at a steady rate for a bounded time (default
 * 5 minutes at 40 requests/s; `SOAK_SECONDS`, `SOAK_RATE`). Prints errors, resident memory of
 * each process after warm-up and at the end, whether the spool drained, and receipts stored
 * against requests made; exits non-zero when any of that is wrong. `e2e/stack/soak.test.ts` runs
 * a short version in CI.
 */
// A command-line entry point, like the Env of an app: the one place this reads the environment.
const seconds = Number(process.env.SOAK_SECONDS ?? 300);
const rate = Number(process.env.SOAK_RATE ?? 40);
if (!(seconds > 0) || !(rate > 0)) {
  process.stderr.write('SOAK_SECONDS and SOAK_RATE must be positive numbers\n');
  process.exit(2);
}
const report = await runSoak({
  seconds,
  rate,
  warmupSeconds: Math.min(30, Math.max(5, Math.round(seconds / 10))),
  // Memory must stay flat over a long run; a short one only reports it.
  ...(seconds >= 120 ? { maxRssGrowth: 1.5 } : {}),
  progress: (line) => process.stdout.write(`  … ${line}\n`),
});
process.stdout.write(`\nsoak\n${report.lines.map((l) => `  ${l}`).join('\n')}\n`);
if (report.passed) process.stdout.write('\nPASS\n');
else {
  process.stdout.write(`\nFAIL\n${report.failures.map((f) => `  ${f}`).join('\n')}\n`);
  process.exitCode = 1;
}
