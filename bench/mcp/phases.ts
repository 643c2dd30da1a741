import { percentile } from '../gateway/load.ts';
import type { LatencyResult, ThroughputResult } from '../gateway/phases.ts';
import { groupCpuSeconds } from '../gateway/processes.ts';
import { median } from '../measure.ts';
import {
  closedLoop,
  closeSessions,
  interleavedEcho,
  type McpTarget,
  openSessions,
  type Session,
} from './load.ts';
import { DIRECT } from './plan.ts';

/** Concurrency 1: `rounds` × `iterations` interleaved calls per target, one session each. */
export async function measureLatency(
  targets: ReadonlyArray<McpTarget>,
  sessions: ReadonlyArray<Session>,
  rounds: number,
  iterations: number,
  progress: (line: string) => void,
): Promise<Map<string, LatencyResult>> {
  const perRound = new Map(targets.map((t) => [t.name, [] as Array<{ p50: number; p99: number }>]));
  for (let round = 0; round < rounds; round++) {
    progress(`concurrency 1, round ${round + 1}/${rounds}: ${iterations} calls per target`);
    const samples = await interleavedEcho(targets, sessions, iterations);
    for (const [name, values] of samples) {
      perRound.get(name)?.push({ p50: percentile(values, 0.5), p99: percentile(values, 0.99) });
    }
  }
  const direct = perRound.get(DIRECT) ?? [];
  const results = new Map<string, LatencyResult>();
  for (const [name, stats] of perRound) {
    results.set(name, {
      p50: median(stats.map((s) => s.p50)),
      p99: median(stats.map((s) => s.p99)),
      addedP50: median(stats.map((s, r) => s.p50 - (direct[r]?.p50 ?? 0))),
      addedP99: median(stats.map((s, r) => s.p99 - (direct[r]?.p99 ?? 0))),
    });
  }
  return results;
}

/**
 * Concurrency `concurrency` (that many sessions per target, opened once), `rounds` blocks of
 * `durationMs` per target, order rotated per round; CPU per call of the target's own processes.
 */
export async function measureThroughput(
  targets: ReadonlyArray<McpTarget>,
  options: { rounds: number; durationMs: number; concurrency: number },
  progress: (line: string) => void,
): Promise<Map<string, ThroughputResult>> {
  const sessions = new Map<string, Session[]>();
  const results = new Map<string, ThroughputResult>(
    targets.map((t) => [t.name, { perSecond: 0, rounds: [], errors: 0, notes: [] }]),
  );
  const cpu = new Map(targets.map((t) => [t.name, [] as number[]]));
  try {
    for (const target of targets) {
      sessions.set(target.name, await openSessions(target, options.concurrency));
    }
    for (let round = 0; round < options.rounds; round++) {
      progress(
        `concurrency ${options.concurrency}, round ${round + 1}/${options.rounds}: ${options.durationMs / 1000} s per target`,
      );
      for (let k = 0; k < targets.length; k++) {
        const target = targets[(round + k) % targets.length] as McpTarget;
        const result = results.get(target.name) as ThroughputResult;
        const cpuBefore = sumCpu(target.pgids);
        const block = await closedLoop(sessions.get(target.name) ?? [], options.durationMs);
        // After the block's own aftermath (Toolgate: shipping its receipts), so the CPU per
        // call includes it.
        const note = await target.afterBlock?.();
        const cpuSeconds = sumCpu(target.pgids) - cpuBefore;
        result.rounds.push(block.perSecond);
        result.errors += block.errors;
        if (block.firstError && !result.firstError) result.firstError = block.firstError;
        if (target.pgids.length > 0 && block.requests > 0) {
          cpu.get(target.name)?.push((cpuSeconds * 1000) / block.requests);
        }
        if (note) result.notes.push(note);
      }
    }
  } finally {
    await Promise.all([...sessions.values()].map(closeSessions));
  }
  for (const [name, result] of results) {
    result.perSecond = median(result.rounds);
    const perCall = cpu.get(name) ?? [];
    if (perCall.length > 0) result.cpuMsPerRequest = median(perCall);
  }
  return results;
}

function sumCpu(pgids: ReadonlyArray<number>): number {
  return pgids.reduce((sum, pgid) => sum + groupCpuSeconds(pgid), 0);
}
