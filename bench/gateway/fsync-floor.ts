import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { percentile } from './load.ts';

/**
 * What one durable receipt costs at least on this filesystem: a 2 KiB append and an
 * `fdatasync`, as the spool does per record (or per group commit). Context for the receipts
 * target while the gateway has no receipts-off switch to measure it end to end.
 */
export async function fdatasyncFloor(
  dir: string,
  count = 300,
): Promise<{ p50: number; p99: number }> {
  const path = join(dir, 'fsync-floor.bin');
  const handle = await open(path, 'a');
  const record = Buffer.alloc(2048, 0x61);
  const samples: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      await handle.write(record);
      await handle.datasync();
      samples.push(performance.now() - started);
    }
  } finally {
    await handle.close();
    await rm(path, { force: true });
  }
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
}
