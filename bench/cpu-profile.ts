import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/**
 * `BENCH_CPU_PROF=<dir>`: a V8 CPU profile of this thread while `work` runs, written to
 * `<dir>/<label>.cpuprofile` (open it in Chrome DevTools or speedscope). Unlike `node
 * --cpu-prof`, it covers only the measured part, not the setup before it. Without the variable
 * `work` just runs.
 */
export async function withCpuProfile<T>(label: string, work: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_CPU_PROF;
  if (!dir) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${label}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}
