/** Median nanoseconds per call of `fn`, measured in `batches` batches of `perBatch` calls. */
export function medianNsPerOp(fn: () => unknown, perBatch: number, batches: number): number {
  const samples: number[] = [];
  for (let b = 0; b < batches; b++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < perBatch; i++) fn();
    samples.push(Number(process.hrtime.bigint() - start) / perBatch);
  }
  return median(samples);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Measures `candidate` against `baseline` in interleaved rounds so that machine noise (the other
 * core busy, frequency changes) hits both alike; returns the median of each and their ratio.
 */
export function compare(
  baseline: () => unknown,
  candidate: () => unknown,
  { rounds = 15, perBatch = 200 } = {},
): { baselineNs: number; candidateNs: number; ratio: number } {
  for (let i = 0; i < 2000; i++) {
    baseline();
    candidate();
  }
  const base: number[] = [];
  const cand: number[] = [];
  for (let r = 0; r < rounds; r++) {
    base.push(medianNsPerOp(baseline, perBatch, 3));
    cand.push(medianNsPerOp(candidate, perBatch, 3));
  }
  const baselineNs = median(base);
  const candidateNs = median(cand);
  return { baselineNs, candidateNs, ratio: candidateNs / baselineNs };
}

export interface BenchResult {
  name: string;
  lines: string[];
  passed: boolean;
}
