import { statfs } from 'node:fs/promises';

/** Bytes an unprivileged process may still write on the file system holding `dir`. */
export async function freeBytesOf(dir: string): Promise<number> {
  const stats = await statfs(dir);
  return stats.bavail * stats.bsize;
}

/**
 * Keeps an eye on the free space of the spool's file system, so a disk running full is met the
 * way a full spool is (`SPOOL_FULL`: refuse or drop, visible in status and metrics) instead of
 * as a failed write. Checked every `intervalMs` in the background; `low` is the last verdict.
 */
export class DiskSpaceWatch {
  private timer: NodeJS.Timeout | undefined;
  private lastFree: number | undefined;
  low = false;

  constructor(
    private readonly dir: string,
    /** Below this many free bytes the disk counts as full. */
    readonly minFreeBytes: number,
    private readonly options: {
      intervalMs?: number;
      freeBytes?: (dir: string) => Promise<number>;
      onChange?: (low: boolean, freeBytes: number) => void;
    } = {},
  ) {}

  /** Free bytes at the last check (undefined before the first). */
  get freeBytes(): number | undefined {
    return this.lastFree;
  }

  async check(): Promise<void> {
    const free = await (this.options.freeBytes ?? freeBytesOf)(this.dir);
    this.lastFree = free;
    const low = free < this.minFreeBytes;
    if (low !== this.low) {
      this.low = low;
      this.options.onChange?.(low, free);
    }
  }

  /** Checks now, then every `intervalMs` (default 250) until `stop()`. */
  async start(): Promise<void> {
    await this.check();
    this.timer = setInterval(() => {
      // A failed statfs keeps the last verdict; the next tick tries again.
      this.check().catch(() => undefined);
    }, this.options.intervalMs ?? 250);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
