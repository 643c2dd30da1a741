/**
 * A gateway stand-in for the crash tests, killed with SIGKILL by the parent mid-stream.
 *
 *   node --import tsx crash-child.ts <dir> append <tag> <concurrency> [fsync mode]
 *     appends chained receipts forever, printing `<id>` once each append has resolved;
 *   node --import tsx crash-child.ts <dir> ack
 *     forever: appends a few receipts, acknowledges the oldest pending ones, prints `acked <seq>`.
 *
 * Everything printed is what the gateway would have confirmed to an agent (or to itself), so
 * after the kill every printed id must be in the spool and every printed ack must hold.
 */
import type { Receipt } from '@toolgate/core';
import { Spool } from '../spool.ts';
import { fakeReceipt } from './fake-receipt.ts';

const [dir, mode, tag = 'run', concurrency = '8', fsync = 'batch'] = process.argv.slice(2);
if (dir === undefined || (mode !== 'append' && mode !== 'ack')) {
  throw new Error('usage: crash-child.ts <dir> append|ack [tag] [concurrency]');
}

const spool = await Spool.open<Receipt>({
  dir,
  maxBytes: 512 * 1024 * 1024,
  segmentBytes: 64 * 1024,
  fsync: fsync as 'always' | 'batch' | 'interval',
});
process.stdout.write('ready\n');
let counter = 0;

async function appendOne(): Promise<string> {
  const id = `${tag}-${counter++}`;
  // Built and appended in one synchronous step, so concurrent appends chain in order.
  await spool.append(fakeReceipt(id, spool.chainHead(), 2_000));
  return id;
}

if (mode === 'append') {
  const worker = async (): Promise<never> => {
    for (;;) process.stdout.write(`${await appendOne()}\n`);
  };
  await Promise.all(Array.from({ length: Number(concurrency) }, worker));
} else {
  for (;;) {
    await Promise.all(Array.from({ length: 5 }, appendOne));
    const batch = await spool.pending(3);
    const last = batch.at(-1);
    if (last !== undefined) {
      await spool.ackThrough(last.seq);
      process.stdout.write(`acked ${last.seq}\n`);
    }
  }
}
