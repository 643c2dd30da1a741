import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresScratchDir } from '@toolgate/db';
import { Processes } from '../gateway/processes.ts';
import { startDemoMcp } from '../mcp.ts';
import { closedLoop, closeSessions, openSession, openSessions, timedEcho } from './load.ts';
import { breakdown, PARTS } from './profile-breakdown.ts';
import { startToolgateForMcp } from './toolgate.ts';

/**
 * Where the gateway's CPU goes per `tools/call` (not part of `pnpm bench`; run by hand:
 * `npx tsx bench/mcp/profile.ts [receipts on|off] [calls]`). The stack of `pnpm bench mcp`
 * (demo MCP server, API, the gateway's production build) with the gateway under `--cpu-prof`;
 * one SDK client session makes `calls` sequential echo calls, then 32 sessions a closed loop of
 * 3 s; the profile's samples inside each timed window are broken down per part
 * (profile-breakdown.ts) and divided by the calls made. Prints a table in µs per call.
 */
async function main() {
  const receipts = process.argv[2] === 'off' ? 'off' : 'on';
  const calls = Number(process.argv[3] ?? 3000);
  const progress = (line: string) => process.stdout.write(`  … ${line}\n`);
  const processes = new Processes();
  const dataDir = await postgresScratchDir('toolgate-profile-mcp-');
  const profileDir = await mkdtemp(join(tmpdir(), 'toolgate-mcp-cpuprof-'));
  try {
    const { url: mcpUrl } = await startDemoMcp(processes);
    const { stack, target } = await startToolgateForMcp(processes, {
      mcpUrl,
      dataDir,
      progress,
      gatewayEnv: { RECEIPTS: receipts },
      gatewayNodeArgs: ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-interval', '200'],
    });
    const session = await openSession(target);
    progress('warm-up: 500 calls');
    for (let i = 0; i < 500; i++) await timedEcho(session);
    await target.afterBlock?.();
    const sequential = { from: nowUs(), to: 0 };
    const started = performance.now();
    for (let i = 0; i < calls; i++) await timedEcho(session);
    const seqMs = performance.now() - started;
    sequential.to = nowUs();
    await closeSessions([session]);
    await target.afterBlock?.();
    const pool = await openSessions(target, 32);
    const loaded = { from: nowUs(), to: 0 };
    const loop = await closedLoop(pool, 3000);
    loaded.to = nowUs();
    await closeSessions(pool);
    await target.afterBlock?.();
    progress('stopping the gateway (it writes its profile on exit)');
    await processes.stop(stack.gateway, 15_000);
    const file = (await readdir(profileDir)).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('the gateway wrote no profile');
    const path = join(profileDir, file);
    const windows = [
      {
        label: 'concurrency 1',
        window: sequential,
        calls,
        note: `${(seqMs / calls).toFixed(3)} ms/call wall`,
      },
      {
        label: 'concurrency 32',
        window: loaded,
        calls: loop.requests,
        note: `${loop.perSecond.toFixed(0)} calls/s`,
      },
    ];
    process.stdout.write(`\ngateway CPU per tools/call (receipts ${receipts}), µs:\n`);
    const results = windows.map((w) => ({
      ...w,
      result: breakdown(path, { fromUs: w.window.from, toUs: w.window.to }),
    }));
    process.stdout.write(
      `  ${'part'.padEnd(50)}${results.map((r) => r.label.padStart(16)).join('')}\n`,
    );
    for (const part of PARTS) {
      const cells = results.map((r) =>
        ((r.result.parts.get(part) ?? 0) / r.calls).toFixed(0).padStart(16),
      );
      process.stdout.write(`  ${part.padEnd(50)}${cells.join('')}\n`);
    }
    process.stdout.write(
      `  ${'total'.padEnd(50)}${results.map((r) => (r.result.totalUs / r.calls).toFixed(0).padStart(16)).join('')}\n`,
    );
    process.stdout.write(`  ${''.padEnd(50)}${results.map((r) => r.note.padStart(16)).join('')}\n`);
    process.stdout.write(`  profile: ${path}\n`);
  } finally {
    await processes.stopAll();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** CLOCK_MONOTONIC in µs: the clock of V8's profile timestamps (the gateway's, same machine). */
function nowUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

await main();
