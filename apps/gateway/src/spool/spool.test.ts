import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  appendFile,
  mkdtemp,
  open,
  readdir,
  readFile,
  rm,
  stat,
  truncate,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Receipt, verifyChain } from '@toolgate/core';
import { until } from '@toolgate/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  SpoolClosedError,
  SpoolCorruptError,
  SpoolFailedError,
  SpoolFullError,
  SpoolLockedError,
} from './errors.ts';
import { Spool, type SpoolOptions } from './spool.ts';
import { fakeReceipt } from './testing/fake-receipt.ts';

const gatewayDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const childScript = join(gatewayDir, 'src', 'spool', 'testing', 'crash-child.ts');

let dir: string;
const opened: Array<Spool<Receipt>> = [];
const children: ChildProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-spool-'));
});

afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const spool of opened.splice(0)) await spool.close().catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

async function openSpool(options: Partial<SpoolOptions> = {}): Promise<Spool<Receipt>> {
  const spool = await Spool.open<Receipt>({ dir, maxBytes: 64 * 1024 * 1024, ...options });
  opened.push(spool);
  return spool;
}

async function reopen(spool: Spool<Receipt>, options: Partial<SpoolOptions> = {}) {
  await spool.close();
  return openSpool(options);
}

/** Appends `count` chained receipts concurrently (as request handlers would). */
async function appendChain(spool: Spool<Receipt>, count: number, tag = 'r'): Promise<Receipt[]> {
  const receipts: Receipt[] = [];
  const appends: Array<Promise<unknown>> = [];
  for (let i = 0; i < count; i++) {
    const receipt = fakeReceipt(`${tag}-${String(i).padStart(4, '0')}`, spool.chainHead());
    receipts.push(receipt);
    appends.push(spool.append(receipt));
  }
  await Promise.all(appends);
  return receipts;
}

async function segmentFiles(): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.startsWith('segment-')).sort();
}

function recordBytes(receipt: Receipt): number {
  return 24 + Buffer.byteLength(JSON.stringify(receipt));
}

describe('Spool: append, pending, ack', () => {
  it('returns records in append order and forgets them once acknowledged', async () => {
    let clock = 1_000;
    const spool = await openSpool({ now: () => clock });
    expect(spool.chainHead()).toBeNull();
    const receipts = await appendChain(spool, 10);
    clock = 4_000;
    expect(spool.stats()).toMatchObject({ depth: 10, dropped: 0, segments: 1, oldestAgeMs: 3_000 });
    expect(spool.stats().bytes).toBe(receipts.reduce((sum, r) => sum + recordBytes(r), 0));

    const first = await spool.pending(4);
    expect(first.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect(first.map((r) => r.receipt)).toEqual(receipts.slice(0, 4));

    await spool.ackThrough(4);
    const rest = await spool.pending(100);
    expect(rest.map((r) => r.seq)).toEqual([5, 6, 7, 8, 9, 10]);
    expect(rest.map((r) => r.receipt)).toEqual(receipts.slice(4));
    expect(spool.stats().depth).toBe(6);
    expect(verifyChain(receipts).valid).toBe(true);
    expect(spool.chainHead()).toBe(receipts.at(-1)?.hash);

    const reopened = await reopen(spool);
    expect((await reopened.pending(100)).map((r) => r.seq)).toEqual([5, 6, 7, 8, 9, 10]);
    expect(reopened.recovery).toMatchObject({ records: 10, unacked: 6, tornBytes: 0 });
    await expect(reopened.ackThrough(11)).rejects.toThrow(RangeError);
  });

  it('rotates segments, deletes fully acknowledged ones, and keeps the chain head', async () => {
    const spool = await openSpool({ segmentBytes: 8 * 1024 });
    const receipts = await appendChain(spool, 20);
    expect(spool.stats().segments).toBeGreaterThanOrEqual(10);
    expect((await segmentFiles()).length).toBe(spool.stats().segments);

    await spool.ackThrough(20);
    expect(spool.stats()).toMatchObject({ depth: 0, bytes: 0, segments: 1, oldestAgeMs: 0 });
    expect(await segmentFiles()).toHaveLength(1);
    expect(spool.chainHead()).toBe(receipts.at(-1)?.hash);

    const reopened = await reopen(spool, { segmentBytes: 8 * 1024 });
    expect(reopened.chainHead()).toBe(receipts.at(-1)?.hash);
    expect(await reopened.pending(100)).toEqual([]);
    const more = await appendChain(reopened, 3, 'next');
    expect(more[0]?.prev_hash).toBe(receipts.at(-1)?.hash);
    expect((await reopened.pending(100)).map((r) => r.seq)).toEqual([21, 22, 23]);
    expect(verifyChain([...receipts, ...more]).valid).toBe(true);
  });

  it('shares one fsync among concurrent appends in batch mode, one each in always mode', async () => {
    const batch = await openSpool({ fsync: 'batch' });
    await appendChain(batch, 50);
    expect(batch.stats().fsyncs).toBe(1);
    await batch.close();
    await rm(dir, { recursive: true });
    const always = await openSpool({ fsync: 'always' });
    await appendChain(always, 50);
    expect(always.stats().fsyncs).toBe(50);
  });

  it('interval: an append resolves once written; shipping waits for its fsync', async () => {
    const lazy = await openSpool({ fsync: 'interval', fsyncIntervalMs: 600_000 });
    const receipts = await appendChain(lazy, 20);
    expect(lazy.stats().fsyncs).toBe(0);
    expect(await lazy.pending(100)).toEqual([]); // written, not yet durable: not shipped
    await lazy.close(); // fsyncs what was written
    const reopened = await openSpool();
    expect((await reopened.pending(100)).map((r) => r.receipt.id)).toEqual(
      receipts.map((r) => r.id),
    );
    await reopened.close();
    await rm(dir, { recursive: true });
    const quick = await openSpool({ fsync: 'interval', fsyncIntervalMs: 5, segmentBytes: 8192 });
    await appendChain(quick, 30);
    const deadline = Date.now() + 10_000;
    while ((await quick.pending(100)).length < 30 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await quick.pending(100)).toHaveLength(30); // across rotated segments too
    expect(quick.stats().segments).toBeGreaterThan(1);
  });

  it('interval: a write that fails refuses that append and every later one', async () => {
    const spool = await openSpool({ fsync: 'interval', fsyncIntervalMs: 600_000 });
    await appendChain(spool, 3);
    // The segment's descriptor made read-only underneath: the next write fails (EBADF).
    const active = (spool as unknown as { active: { handle: unknown } }).active;
    const writable = active.handle;
    const readOnly = await open(join(dir, (await segmentFiles())[0] as string), 'r');
    active.handle = readOnly;
    try {
      await expect(spool.append(fakeReceipt('r-0003', spool.chainHead()))).rejects.toBeInstanceOf(
        SpoolFailedError,
      );
    } finally {
      active.handle = writable;
      await readOnly.close();
    }
    // The segment is writable again, but its tail is unknown: the spool stays stopped.
    await expect(spool.append(fakeReceipt('r-0004', spool.chainHead()))).rejects.toBeInstanceOf(
      SpoolFailedError,
    );
  });

  it('refuses work after close', async () => {
    const spool = await openSpool();
    await spool.close();
    await expect(spool.append(fakeReceipt('late', null))).rejects.toBeInstanceOf(SpoolClosedError);
    await expect(spool.pending(1)).rejects.toBeInstanceOf(SpoolClosedError);
  });
});

describe('Spool: bounded', () => {
  it('reject: throws SpoolFullError when full, accepts again after acks free space', async () => {
    const size = recordBytes(fakeReceipt('r-0000', null));
    const spool = await openSpool({ maxBytes: Math.floor(size * 3.5), fullPolicy: 'reject' });
    const receipts = await appendChain(spool, 3);
    const head = spool.chainHead();
    await expect(spool.append(fakeReceipt('r-0003', head))).rejects.toBeInstanceOf(SpoolFullError);
    expect(spool.chainHead()).toBe(head);
    expect(spool.stats()).toMatchObject({ depth: 3, dropped: 0 });

    await spool.ackThrough(2);
    await spool.append(fakeReceipt('r-0003', head));
    expect((await spool.pending(10)).map((r) => r.receipt.id)).toEqual(['r-0002', 'r-0003']);
    expect(receipts).toHaveLength(3);
  });

  it('drop: counts what it could not store and stores the rest', async () => {
    const size = recordBytes(fakeReceipt('r-0000', null));
    const spool = await openSpool({ maxBytes: Math.floor(size * 3.5), fullPolicy: 'drop' });
    await appendChain(spool, 5);
    expect(spool.stats()).toMatchObject({ depth: 3, dropped: 2 });
    expect((await spool.pending(10)).map((r) => r.receipt.id)).toEqual([
      'r-0000',
      'r-0001',
      'r-0002',
    ]);
  });
});

describe('Spool: disk running full', () => {
  let free = 1e9;
  const fakeDisk = { minFreeBytes: 1e6, freeBytes: async () => free };
  afterEach(() => {
    free = 1e9;
  });

  it('reject: a disk below the free-space floor refuses appends like a full spool, until it has room', async () => {
    const spool = await openSpool(fakeDisk);
    await appendChain(spool, 3);
    free = 10;
    await until(() => spool.stats().diskFull, 5000, 'disk seen as full');
    expect(spool.atCapacity()).toBe(true);
    expect(spool.stats().full).toBe(true);
    const head = spool.chainHead();
    const refused = spool.append(fakeReceipt('refused', head));
    await expect(refused).rejects.toBeInstanceOf(SpoolFullError);
    await expect(refused).rejects.toThrow(/10 bytes free on the spool's disk/);
    expect(spool.chainHead()).toBe(head); // a refused receipt does not move the chain
    free = 1e9;
    await until(() => !spool.stats().full, 5000, 'room again');
    await appendChain(spool, 2, 'after');
    expect(spool.stats().depth).toBe(5);
  });

  it('drop: counts what it could not store while the disk is low', async () => {
    const spool = await openSpool({ ...fakeDisk, fullPolicy: 'drop' });
    free = 10;
    await until(() => spool.stats().diskFull, 5000, 'disk seen as full');
    expect(spool.atCapacity()).toBe(false); // nothing refused: receipts are dropped instead
    await appendChain(spool, 4);
    expect(spool.stats()).toMatchObject({ depth: 0, dropped: 4, full: true });
  });
});

describe('Spool: recovery from a torn tail', () => {
  it('cuts a record torn mid-way and reports the bytes it dropped', async () => {
    const spool = await openSpool();
    const receipts = await appendChain(spool, 5);
    await spool.close();
    const [file] = await segmentFiles();
    const path = join(dir, file as string);
    const { size } = await stat(path);
    await truncate(path, size - 100);

    const reopened = await openSpool();
    expect(reopened.recovery.tornBytes).toBe(recordBytes(receipts[4] as Receipt) - 100);
    const pending = await reopened.pending(10);
    expect(pending.map((r) => r.receipt)).toEqual(receipts.slice(0, 4));
    expect(reopened.chainHead()).toBe(receipts[3]?.hash);
    // The torn record never resolved, so its seq is free again.
    await reopened.append(fakeReceipt('again', reopened.chainHead()));
    expect((await reopened.pending(10)).map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('cuts garbage after the last record (pages written out of order)', async () => {
    const spool = await openSpool();
    const receipts = await appendChain(spool, 3);
    await spool.close();
    const [file] = await segmentFiles();
    await appendFile(join(dir, file as string), Buffer.alloc(777, 0xab));
    const reopened = await openSpool();
    expect(reopened.recovery.tornBytes).toBe(777);
    expect((await reopened.pending(10)).map((r) => r.receipt)).toEqual(receipts);
  });

  it('deletes a new segment whose header was torn', async () => {
    const spool = await openSpool();
    const receipts = await appendChain(spool, 3);
    await spool.close();
    await writeFile(join(dir, 'segment-0000000000000004.log'), 'TGSPOOL1\0\0');
    const reopened = await openSpool();
    expect(reopened.recovery.tornBytes).toBe(10);
    expect(await segmentFiles()).toHaveLength(1);
    expect(reopened.chainHead()).toBe(receipts[2]?.hash);
  });

  it('keeps the chain head in the header of an empty newest segment after full compaction', async () => {
    const spool = await openSpool({ segmentBytes: 8 * 1024 });
    const receipts = await appendChain(spool, 5);
    await spool.close();
    // Simulate a crash right after a rotation: the newest segment keeps only its header.
    const newest = join(dir, (await segmentFiles()).at(-1) as string);
    const bytes = await readFile(newest);
    await truncate(newest, 16 + bytes.readUInt32BE(8));

    const reopened = await openSpool({ segmentBytes: 8 * 1024 });
    expect(reopened.chainHead()).toBe(receipts[3]?.hash);
    expect(reopened.stats().depth).toBe(4);
    await reopened.ackThrough(4);
    expect(await segmentFiles()).toHaveLength(1);
    const last = await reopen(reopened, { segmentBytes: 8 * 1024 });
    expect(last.chainHead()).toBe(receipts[3]?.hash);
    expect(last.stats().depth).toBe(0);
  });

  it('refuses to open when a record before the tail is damaged', async () => {
    const spool = await openSpool({ segmentBytes: 8 * 1024 });
    await appendChain(spool, 6);
    await spool.close();
    const [oldest] = await segmentFiles();
    const handle = await open(join(dir, oldest as string), 'r+');
    await handle.write(Buffer.from('X'), 0, 1, 500);
    await handle.close();
    await expect(openSpool()).rejects.toBeInstanceOf(SpoolCorruptError);
  });
});

describe('Spool: lock', () => {
  it('fails while another spool holds the directory, succeeds after close', async () => {
    const first = await openSpool();
    await expect(openSpool()).rejects.toBeInstanceOf(SpoolLockedError);
    await first.close();
    await openSpool();
  });

  it('takes over a lock left by a dead process', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number;
    await writeFile(join(dir, 'spool.lock'), JSON.stringify({ pid: dead, startTime: null }));
    const spool = await openSpool();
    await spool.close();
    expect(await readdir(dir)).not.toContain('spool.lock');
  });

  it('takes over an empty lock file that is not fresh', async () => {
    const path = join(dir, 'spool.lock');
    await writeFile(path, '');
    await utimes(path, new Date(0), new Date(0));
    await openSpool();
  });

  it.runIf(process.platform === 'linux')(
    'takes over a lock from an earlier process that had our pid (containers: pid 1)',
    async () => {
      const stale = { pid: process.pid, startTime: '1' };
      await writeFile(join(dir, 'spool.lock'), JSON.stringify(stale));
      await openSpool();
    },
  );
});

/** A child gateway stand-in whose stdout lines are collected as they arrive. */
function startChild(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', childScript, ...args], {
    cwd: gatewayDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    for (const wake of waiters) wake();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = once(child, 'exit');
  return {
    lines,
    /** Resolves once `predicate(lines)` holds; rejects if the child exits first. */
    until(predicate: (lines: string[]) => boolean): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(lines)) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
        exited.then(() => reject(new Error(`child exited early: ${stderr}`)));
      });
    },
    async kill(): Promise<void> {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('Spool: kill -9', () => {
  it('keeps every appended receipt the child saw resolve, with no duplicate', async () => {
    const confirmed: string[] = [];
    const killAfter = [60, 250, 500, 120];
    for (const [run, count] of killAfter.entries()) {
      const child = startChild([dir, 'append', `run${run}`, '16']);
      await child.until((lines) => lines.length > count);
      if (run === 0) {
        const other = Spool.open({ dir, maxBytes: 1024 });
        await expect(other).rejects.toBeInstanceOf(SpoolLockedError);
      }
      await child.kill();
      confirmed.push(...child.lines.filter((line) => line !== 'ready'));
    }

    const spool = await openSpool();
    const records = await spool.pending(1_000_000);
    const ids = records.map((r) => r.receipt.id);
    const stored = new Set(ids);
    expect(stored.size).toBe(ids.length);
    expect(confirmed.filter((id) => !stored.has(id))).toEqual([]);
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
    expect(verifyChain(records.map((r) => r.receipt))).toEqual({
      valid: true,
      checked: records.length,
    });
    expect(spool.chainHead()).toBe(records.at(-1)?.receipt.hash);
    console.info(
      `kill -9 ×${killAfter.length}: ${confirmed.length} confirmed, ${records.length} stored ` +
        `(${records.length - confirmed.length} appended but unconfirmed at the kill), ` +
        `torn tail on last reopen ${spool.recovery.tornBytes} B`,
    );
  }, 20_000);

  it('interval mode: a kill -9 loses no append the child saw resolve', async () => {
    const confirmed: string[] = [];
    for (const [run, count] of [80, 300].entries()) {
      const child = startChild([dir, 'append', `lazy${run}`, '16', 'interval']);
      await child.until((lines) => lines.length > count);
      await child.kill();
      confirmed.push(...child.lines.filter((line) => line !== 'ready'));
    }
    const spool = await openSpool();
    const records = await spool.pending(1_000_000);
    const stored = new Set(records.map((r) => r.receipt.id));
    expect(stored.size).toBe(records.length);
    expect(confirmed.filter((id) => !stored.has(id))).toEqual([]);
    expect(verifyChain(records.map((r) => r.receipt)).valid).toBe(true);
  }, 20_000);

  it('keeps acknowledgements the child saw resolve', async () => {
    const child = startChild([dir, 'ack']);
    await child.until((lines) => lines.filter((l) => l.startsWith('acked')).length >= 25);
    await child.kill();
    const acked = child.lines.filter((l) => l.startsWith('acked')).map((l) => Number(l.slice(6)));
    const lastAck = Math.max(...acked);

    const spool = await openSpool();
    const pending = await spool.pending(1_000_000);
    expect(pending.length).toBeGreaterThan(0);
    const firstPending = pending[0]?.seq as number;
    // Past the last ack the child saw; at most one more ack (3 records) completed unseen.
    expect(firstPending).toBeGreaterThan(lastAck);
    expect(firstPending).toBeLessThanOrEqual(lastAck + 1 + 3);
    expect(pending.map((r) => r.seq)).toEqual(pending.map((_, i) => firstPending + i));
    expect(
      verifyChain(
        pending.map((r) => r.receipt),
        pending[0]?.receipt.prev_hash,
      ).valid,
    ).toBe(true);
  }, 15_000);
});

describe('Spool: throughput (printed, not asserted)', () => {
  it('appends 2,000 × 3 KB receipts with fsync always and batch', async () => {
    const receipts = Array.from({ length: 2_000 }, (_, i) => fakeReceipt(`t-${i}`, null));
    const lines: string[] = [];
    for (const inFlight of [1, 64]) {
      const results: string[] = [];
      for (const fsync of ['always', 'batch'] as const) {
        const spool = await Spool.open<Receipt>({
          dir: join(dir, `${fsync}-${inFlight}`),
          maxBytes: 1 << 30,
          fsync,
        });
        opened.push(spool);
        let next = 0;
        const client = async () => {
          while (next < receipts.length) await spool.append(receipts[next++] as Receipt);
        };
        const started = performance.now();
        await Promise.all(Array.from({ length: inFlight }, client));
        const seconds = (performance.now() - started) / 1_000;
        const perSecond = Math.round(receipts.length / seconds);
        results.push(`${fsync} ${perSecond}/s (${spool.stats().fsyncs} fsyncs)`);
        await spool.close();
      }
      lines.push(`  ${inFlight} in flight: ${results.join(', ')}`);
    }
    console.info(`spool appends, 2,000 × ~3 KB receipts:\n${lines.join('\n')}`);
  }, 20_000);
});
