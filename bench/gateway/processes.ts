import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The repository root: children run from here so `--import tsx` resolves. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const OUTPUT_LINES = 200;
const STOP_GRACE_MS = 5000;
/** Linux clock ticks per second for /proc/<pid>/stat times (USER_HZ, 100 on every x86-64 build). */
const CLOCK_TICKS = 100;

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** Polled until it answers `readyStatus` (default 200). */
  readyUrl: string;
  readyStatus?: number;
  timeoutMs?: number;
  /** Called with each line the process prints (stdout and stderr), e.g. to stream its log. */
  onLine?: (line: string) => void;
  /**
   * CPU niceness (0–19) set right after the spawn, before the process has loaded anything, so
   * what it spawns later (the API's PostgreSQL) inherits it.
   */
  niceness?: number;
}

export interface Started {
  name: string;
  /** Also the process group id: every child leads its own group. */
  pid: number;
  /** The last lines it printed (stdout and stderr). */
  output(): string;
  /** Settles when the process exits (with the signal that ended it, if any). */
  exited: Promise<unknown>;
}

interface Running extends Started {
  child: ChildProcess;
}

/**
 * Child processes of the benchmarks and of `pnpm start` / the end-to-end suite. Each runs in its own process group (detached), so stopping
 * one also stops what it spawned (the API's embedded PostgreSQL); `stopAll` runs in a finally,
 * and an exit or signal handler kills whatever is left if the bench itself dies.
 */
export class Processes {
  private readonly running: Running[] = [];
  private readonly emergency = () => this.killAllNow();
  private readonly onSignal = (signal: NodeJS.Signals) => {
    this.killAllNow();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };

  /** `handleSignals: false` when the caller stops everything itself on Ctrl-C (`pnpm start`). */
  constructor(options: { handleSignals?: boolean } = {}) {
    process.on('exit', this.emergency);
    if (options.handleSignals !== false) {
      process.on('SIGINT', this.onSignal);
      process.on('SIGTERM', this.onSignal);
    }
  }

  async start(options: StartOptions): Promise<Started> {
    const child = spawn(options.command, options.args, {
      cwd: REPO_ROOT,
      env: { ...process.env, ...options.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (options.niceness !== undefined && child.pid !== undefined) {
      try {
        setPriority(child.pid, options.niceness);
      } catch {
        // Exited already (ESRCH): the readiness loop below reports why.
      }
    }
    const lines: string[] = [];
    const collect = (line: string) => {
      lines.push(line);
      if (lines.length > OUTPUT_LINES) lines.splice(0, lines.length - OUTPUT_LINES);
      options.onLine?.(line);
    };
    for (const stream of [child.stdout, child.stderr]) {
      if (stream)
        createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', collect);
    }
    let exitCode: number | null | undefined;
    const exited = once(child, 'exit').then(([code, signal]) => {
      exitCode = (code as number | null) ?? -1;
      return signal;
    });
    const entry: Running = {
      name: options.name,
      pid: child.pid as number,
      child,
      exited,
      output: () => lines.join('\n').trim(),
    };
    this.running.push(entry);
    const deadline = performance.now() + (options.timeoutMs ?? 30_000);
    const wanted = options.readyStatus ?? 200;
    let last = 'no answer yet';
    while (performance.now() < deadline) {
      if (exitCode !== undefined) {
        throw new Error(`${options.name} exited (code ${exitCode}): ${tail(entry.output(), 12)}`);
      }
      try {
        const response = await fetch(options.readyUrl, { signal: AbortSignal.timeout(2000) });
        await response.arrayBuffer();
        if (response.status === wanted) return entry;
        last = `HTTP ${response.status}`;
      } catch (error) {
        last = (error as Error).message;
      }
      await sleep(100);
    }
    throw new Error(
      `${options.name} not ready after ${options.timeoutMs ?? 30_000} ms (${options.readyUrl}: ${last}): ${tail(entry.output(), 12)}`,
    );
  }

  /** Stops one process (its whole group): SIGTERM, then SIGKILL after `graceMs`. */
  async stop(started: Started, graceMs = STOP_GRACE_MS): Promise<void> {
    const index = this.running.findIndex((entry) => entry.pid === started.pid);
    if (index < 0) return;
    const [entry] = this.running.splice(index, 1) as [Running];
    signalGroup(entry.pid, 'SIGTERM');
    await Promise.race([entry.exited, sleep(graceMs)]);
    signalGroup(entry.pid, 'SIGKILL');
  }

  /** SIGTERM every group, wait for the leaders, then SIGKILL whatever is left of each group. */
  async stopAll(graceMs = STOP_GRACE_MS): Promise<void> {
    const all = this.running.splice(0);
    for (const entry of all) signalGroup(entry.pid, 'SIGTERM');
    await Promise.race([Promise.all(all.map((entry) => entry.exited)), sleep(graceMs)]);
    for (const entry of all) signalGroup(entry.pid, 'SIGKILL');
    process.off('exit', this.emergency);
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }

  private killAllNow(): void {
    for (const entry of this.running) signalGroup(entry.pid, 'SIGKILL');
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the whole group is gone already.
  }
}

function tail(text: string, lines: number): string {
  return text.split('\n').slice(-lines).join('\n') || '(no output)';
}

/**
 * CPU seconds (user + system) used so far by the live processes of a process group, from
 * /proc; 0 where /proc is not there. Processes that already exited are not counted.
 */
export function groupCpuSeconds(pgid: number): number {
  let ticks = 0;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the parenthesised command: state ppid pgrp … utime(14) stime(15).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) !== pgid) continue;
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / CLOCK_TICKS;
}
