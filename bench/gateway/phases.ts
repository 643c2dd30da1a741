import { Client } from 'undici';
import { median } from '../measure.ts';
import {
  closedLoop,
  interleavedLatency,
  loadPool,
  percentile,
  type Target,
  type Throughput,
  timeToFirstToken,
} from './load.ts';
import { groupCpuSeconds } from './processes.ts';

/** A target and the process group(s) that serve it (for CPU accounting; none for direct). */
export interface Measured extends Target {
  pgids: number[];
  /** Runs after each of this target's throughput blocks (Toolgate: let the spool drain). */
  afterBlock?: () => Promise<string | undefined>;
}

export interface LatencyResult {
  /** Medians over rounds of each round's percentile. */
  p50: number;
  p99: number;
  /** Medians over rounds of (this target's percentile − direct's, same round). */
  addedP50: number;
  addedP99: number;
}

/** Concurrency 1, `rounds` × `iterations` interleaved requests per target. */
export async function measureLatency(
  targets: ReadonlyArray<Measured>,
  body: string,
  rounds: number,
  iterations: number,
  progress: (line: string) => void,
  directName = 'direct',
): Promise<Map<string, LatencyResult>> {
  const perRound = new Map(targets.map((t) => [t.name, [] as Array<{ p50: number; p99: number }>]));
  for (let round = 0; round < rounds; round++) {
    progress(`concurrency 1, round ${round + 1}/${rounds}: ${iterations} requests per target`);
    const samples = await interleavedLatency(targets, body, iterations);
    for (const [name, values] of samples) {
      perRound.get(name)?.push({ p50: percentile(values, 0.5), p99: percentile(values, 0.99) });
    }
  }
  return latencyOverRounds(perRound, directName);
}

/** Each target's per-round p50/p99 as medians over rounds, and added over `direct`'s same round. */
export function latencyOverRounds(
  perRound: ReadonlyMap<string, ReadonlyArray<{ p50: number; p99: number }>>,
  directName: string,
): Map<string, LatencyResult> {
  const direct = perRound.get(directName) ?? [];
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

export interface ThroughputResult {
  /** Median over rounds. */
  perSecond: number;
  rounds: number[];
  errors: number;
  firstError?: string;
  /** Median CPU milliseconds per request of the target's own process(es). */
  cpuMsPerRequest?: number;
  notes: string[];
}

/** Concurrency `concurrency`, `rounds` blocks of `durationMs` per target, order rotated per round. */
export async function measureThroughput(
  targets: ReadonlyArray<Measured>,
  body: string,
  options: { rounds: number; durationMs: number; concurrency: number },
  progress: (line: string) => void,
): Promise<Map<string, ThroughputResult>> {
  const pools = new Map(targets.map((t) => [t.name, loadPool(t, options.concurrency)]));
  try {
    return await throughputRounds(targets, options, progress, (target) =>
      closedLoop(
        pools.get(target.name) as ReturnType<typeof loadPool>,
        target,
        body,
        options.concurrency,
        options.durationMs,
      ),
    );
  } finally {
    await Promise.all([...pools.values()].map((pool) => pool.close()));
  }
}

/** What a throughput block needs of a target: its name, its processes, its aftermath. */
export interface BlockTarget {
  name: string;
  pgids: number[];
  afterBlock?: () => Promise<string | undefined>;
}

/**
 * `rounds` rounds of one block per target (`block` runs it), the order rotated per round;
 * calls/s and CPU per call of the target's own processes as medians over rounds.
 */
export async function throughputRounds<T extends BlockTarget>(
  targets: ReadonlyArray<T>,
  options: { rounds: number; durationMs: number; concurrency: number },
  progress: (line: string) => void,
  block: (target: T) => Promise<Throughput>,
): Promise<Map<string, ThroughputResult>> {
  const results = new Map<string, ThroughputResult>(
    targets.map((t) => [t.name, { perSecond: 0, rounds: [], errors: 0, notes: [] }]),
  );
  const cpu = new Map(targets.map((t) => [t.name, [] as number[]]));
  for (let round = 0; round < options.rounds; round++) {
    progress(
      `concurrency ${options.concurrency}, round ${round + 1}/${options.rounds}: ${options.durationMs / 1000} s per target`,
    );
    for (let k = 0; k < targets.length; k++) {
      const target = targets[(round + k) % targets.length] as T;
      const result = results.get(target.name) as ThroughputResult;
      const cpuBefore = sumCpu(target.pgids);
      const measured = await block(target);
      // After the block's own aftermath (Toolgate: shipping the receipts it spooled), so the
      // CPU per request includes it.
      const note = await target.afterBlock?.();
      const cpuSeconds = sumCpu(target.pgids) - cpuBefore;
      result.rounds.push(measured.perSecond);
      result.errors += measured.errors;
      if (measured.firstError && !result.firstError) result.firstError = measured.firstError;
      if (target.pgids.length > 0 && measured.requests > 0) {
        cpu.get(target.name)?.push((cpuSeconds * 1000) / measured.requests);
      }
      if (note) result.notes.push(note);
    }
  }
  for (const [name, result] of results) {
    result.perSecond = median(result.rounds);
    const perRequest = cpu.get(name) ?? [];
    if (perRequest.length > 0) result.cpuMsPerRequest = median(perRequest);
  }
  return results;
}

function sumCpu(pgids: ReadonlyArray<number>): number {
  return pgids.reduce((sum, pgid) => sum + groupCpuSeconds(pgid), 0);
}

export interface TtftResult {
  p50: number;
  p99: number;
  /** Median over rounds of (this target's median TTFT − direct's, same round). */
  addedP50: number;
}

/** Streamed requests, interleaved like `measureLatency`; time to the first content delta. */
export async function measureTtft(
  targets: ReadonlyArray<Target>,
  body: string,
  rounds: number,
  iterations: number,
  progress: (line: string) => void,
): Promise<Map<string, TtftResult>> {
  const clients = targets.map((t) => new Client(t.origin, { keepAliveTimeout: 30_000 }));
  const all = new Map(targets.map((t) => [t.name, [] as number[]]));
  const roundMedians = new Map(targets.map((t) => [t.name, [] as number[]]));
  try {
    for (let round = 0; round < rounds; round++) {
      progress(`streaming, round ${round + 1}/${rounds}: ${iterations} streams per target`);
      const samples = new Map(targets.map((t) => [t.name, [] as number[]]));
      for (let i = 0; i < iterations; i++) {
        for (let k = 0; k < targets.length; k++) {
          const index = (i + k) % targets.length;
          const target = targets[index] as Target;
          const ms = await timeToFirstToken(clients[index] as Client, target, body).catch(
            (error: Error) => {
              throw new Error(`${target.name}: ${error.message}`);
            },
          );
          samples.get(target.name)?.push(ms);
        }
      }
      for (const [name, values] of samples) {
        all.get(name)?.push(...values);
        roundMedians.get(name)?.push(median(values));
      }
    }
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
  const direct = roundMedians.get('direct') ?? [];
  const results = new Map<string, TtftResult>();
  for (const [name, values] of all) {
    const medians = roundMedians.get(name) ?? [];
    results.set(name, {
      p50: percentile(values, 0.5),
      p99: percentile(values, 0.99),
      addedP50: median(medians.map((m, r) => m - (direct[r] ?? 0))),
    });
  }
  return results;
}
