import { percentile } from '../gateway/load.ts';
import {
  type LatencyResult,
  latencyOverRounds,
  type ThroughputResult,
  throughputRounds,
} from '../gateway/phases.ts';
import { median } from '../measure.ts';
import {
  blockEcho,
  closedLoop,
  closeSessions,
  interleavedEcho,
  type McpTarget,
  openSessions,
  type Session,
} from './load.ts';
import { DIRECT } from './plan.ts';

/**
 * Concurrency 1: `rounds` × `iterations` calls per target, one session each, interleaved call by
 * call (`interleaved`) or in blocks per target (`blocks`).
 */
export async function measureLatency(
  targets: ReadonlyArray<McpTarget>,
  sessions: ReadonlyArray<Session>,
  options: { rounds: number; iterations: number; order: 'interleaved' | 'blocks' },
  progress: (line: string) => void,
): Promise<Map<string, LatencyResult>> {
  const { rounds, iterations, order } = options;
  const perRound = new Map(targets.map((t) => [t.name, [] as Array<{ p50: number; p99: number }>]));
  for (let round = 0; round < rounds; round++) {
    progress(
      `concurrency 1, ${order}, round ${round + 1}/${rounds}: ${iterations} calls per target`,
    );
    const samples =
      order === 'interleaved'
        ? await interleavedEcho(targets, sessions, iterations)
        : await blockEcho(targets, sessions, iterations, round);
    for (const [name, values] of samples) {
      perRound.get(name)?.push({ p50: percentile(values, 0.5), p99: percentile(values, 0.99) });
    }
  }
  return latencyOverRounds(perRound, DIRECT);
}

/**
 * Concurrency `concurrency` (that many sessions per target, opened once), `rounds` blocks of
 * `durationMs` per target, order rotated per round; CPU per call of the target's own processes,
 * and of the load generator (this process: median over rounds, µs), which shares the machine.
 */
export async function measureThroughput(
  targets: ReadonlyArray<McpTarget>,
  options: { rounds: number; durationMs: number; concurrency: number },
  progress: (line: string) => void,
): Promise<{ results: Map<string, ThroughputResult>; clientCpuUs: Map<string, number> }> {
  const sessions = new Map<string, Session[]>();
  const clientCpu = new Map(targets.map((t) => [t.name, [] as number[]]));
  try {
    for (const target of targets) {
      sessions.set(target.name, await openSessions(target, options.concurrency));
    }
    const results = await throughputRounds(targets, options, progress, async (target) => {
      const before = process.cpuUsage();
      const measured = await closedLoop(sessions.get(target.name) ?? [], options.durationMs);
      const used = process.cpuUsage(before);
      if (measured.requests > 0) {
        clientCpu.get(target.name)?.push((used.user + used.system) / measured.requests);
      }
      return measured;
    });
    const clientCpuUs = new Map([...clientCpu].map(([name, values]) => [name, median(values)]));
    return { results, clientCpuUs };
  } finally {
    await Promise.all([...sessions.values()].map(closeSessions));
  }
}
