import { spawnSync } from 'node:child_process';
import { runApiOverviewBench } from './api-overview.ts';
import { runApiReceiptsBench } from './api-receipts.ts';
import { runApiSyncBench } from './api-sync.ts';
import { runConsoleBench } from './console.ts';
import { runCoreGeminiBench } from './core-gemini.ts';
import { runCoreMediationBench } from './core-mediation.ts';
import { runGatewayBench } from './gateway.ts';
import { runHostedBench } from './hosted.ts';
import { runMcpBench } from './mcp.ts';
import type { BenchResult } from './measure.ts';

// `pnpm bench`: every benchmark, each measured against its baseline in this same process.
const benches: Array<{ name: string; run: () => BenchResult | Promise<BenchResult> }> = [
  { name: 'core-mediation', run: runCoreMediationBench },
  { name: 'core-gemini', run: runCoreGeminiBench },
  { name: 'api-receipts', run: runApiReceiptsBench },
  { name: 'api-overview', run: runApiOverviewBench },
  { name: 'api-sync', run: runApiSyncBench },
  { name: 'gateway', run: runGatewayBench },
  { name: 'mcp', run: runMcpBench },
  { name: 'console', run: runConsoleBench },
  { name: 'hosted', run: runHostedBench },
];

// Flags (`--cpu-prof`, …) are the benches' own (they read process.argv); the rest are names.
const only = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));

// The API runs with a 64 MB young generation (apps/api/Dockerfile): ingest's garbage is a
// batch's parsed receipts and strings, which then die young instead of being scavenged over and
// over. The API benches host the API in this process, so they run it so too: the flag must be
// given at start (V8 sizes the heap once), hence a child process when it is missing. Not for
// the other benches, whose subjects run with Node's defaults.
const API_HEAP_FLAG = '--max-semi-space-size=64';
const hasFlag = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) =>
  arg.includes('--max-semi-space-size'),
);
if (only.length > 0 && only.every((name) => name.startsWith('api-')) && !hasFlag) {
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, API_HEAP_FLAG, ...process.argv.slice(1)],
    { stdio: 'inherit' },
  );
  process.exit(child.status ?? 1);
}
let failed = 0;
for (const bench of benches) {
  if (only.length > 0 && !only.includes(bench.name)) continue;
  process.stdout.write(`\n▶ ${bench.name} …\n`);
  const result = await bench.run();
  process.stdout.write(`${result.name}\n${result.lines.map((l) => `  ${l}`).join('\n')}\n`);
  if (!result.passed) failed++;
}
process.stdout.write(
  `\n${failed === 0 ? 'all targets met' : `${failed} benchmark(s) with a missed target`}\n`,
);
if (process.env.BENCH_STRICT === '1' && failed > 0) process.exitCode = 1;
