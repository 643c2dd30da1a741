import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceStore } from '../resources/resource-store.service.ts';
import { startTestApi, type TestApi } from '../testing/test-api.ts';
import { CHANGES_CHANNEL, type ChangeEvent, ChangeNotifier } from './change-notifier.ts';
import { PrismaService, type Tx } from './prisma.service.ts';

let api: TestApi;
let store: ResourceStore;
let notifier: ChangeNotifier;
const SYSTEM = { name: 'test:notifier', roles: ['operator'] as const };
const identity = (name: string) => ({ metadata: { name }, spec: { type: 'human', roles: [] } });

beforeAll(async () => {
  api = await startTestApi();
  store = api.app.get(ResourceStore);
  notifier = api.app.get(ChangeNotifier);
});
afterAll(() => api.close());

/** What this replica's waiters hear of: when `fn` has returned, and once every echo is in. */
async function heard(
  fn: (events: ReadonlyArray<ChangeEvent | undefined>) => Promise<unknown>,
): Promise<{
  atReturn: Array<ChangeEvent | undefined>;
  settled: Array<ChangeEvent | undefined>;
}> {
  const events: Array<ChangeEvent | undefined> = [];
  const unsubscribe = notifier.subscribe((change) => events.push(change));
  try {
    await fn(events);
    const atReturn = [...events];
    // A barrier: a NOTIFY sent after the write's arrives after its echo (commit order).
    const client = new pg.Client({ connectionString: api.database.url });
    await client.connect();
    await client.query('SELECT pg_notify($1, $2)', [
      CHANGES_CHANNEL,
      JSON.stringify({ kind: 'Barrier', name: 'b', resourceVersion: '', id: 'other:1' }),
    ]);
    await client.end();
    await expect.poll(() => events.some((e) => e?.kind === 'Barrier')).toBe(true);
    return { atReturn, settled: events.filter((e) => e?.kind !== 'Barrier') };
  } finally {
    unsubscribe();
  }
}

describe('ChangeNotifier', () => {
  it('tells this replica of a write as soon as it has committed, and only once (the echo is skipped)', async () => {
    const { atReturn, settled } = await heard(() =>
      store.create('Identity', identity('notified-once'), SYSTEM),
    );
    // Read-your-writes: a read right after the write (a bundle, a watch) already knows of it.
    expect(atReturn).toEqual([
      { kind: 'Identity', name: 'notified-once', resourceVersion: expect.any(String) },
    ]);
    expect(settled).toEqual(atReturn);
  });

  it('delivers once when the echo overtakes the commit’s answer', async () => {
    const prisma = api.app.get(PrismaService).client;
    let used: Tx | undefined;
    const { atReturn, settled } = await heard(async (events) => {
      // Committed without `committed(tx)`: the echo is the first to tell.
      await prisma.$transaction(async (tx) => {
        used = tx;
        await notifier.notify(tx, { kind: 'Gateway', name: 'echo-first', resourceVersion: '3' });
      });
      await expect.poll(() => events.length).toBe(1);
      notifier.committed(used as Tx);
    });
    expect(atReturn).toEqual([{ kind: 'Gateway', name: 'echo-first', resourceVersion: '3' }]);
    expect(settled).toEqual(atReturn);
  });

  it('tells nobody of a write that rolled back (a dry run, a failed transaction)', async () => {
    const dryRun = await heard(() =>
      store.create('Identity', identity('dry-run-only'), SYSTEM, true),
    );
    expect(dryRun.settled).toEqual([]);
    const failed = await heard(() =>
      store
        .inTransaction(async (tx) => {
          await notifier.notify(tx, {
            kind: 'Identity',
            name: 'rolled-back',
            resourceVersion: '1',
          });
          throw new Error('the write fails after announcing');
        })
        .catch(() => undefined),
    );
    expect(failed.settled).toEqual([]);
  });

  it('passes on the changes other replicas announce, without their ids', async () => {
    const { settled } = await heard(async () => {
      const client = new pg.Client({ connectionString: api.database.url });
      await client.connect();
      await client.query('SELECT pg_notify($1, $2)', [
        CHANGES_CHANNEL,
        JSON.stringify({ kind: 'Gateway', name: 'elsewhere', resourceVersion: '7', id: 'r2:1' }),
      ]);
      await client.end();
    });
    expect(settled).toEqual([{ kind: 'Gateway', name: 'elsewhere', resourceVersion: '7' }]);
  });
});
