import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApiClient, createClient } from '@toolgate/contract';
import { receiptHash } from '@toolgate/core';
import { until } from '@toolgate/core/testing';
import pino from 'pino';
import type { Counter } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import { createMetrics, type GatewayMetrics } from '../metrics.ts';
import type { SpooledReceipt } from '../receipts/spooled-receipt.ts';
import { Spool } from '../spool/spool.ts';
import { ReceiptShipper, type ReceiptShipperOptions } from './receipt-shipper.ts';
import { chainLinks, chainProblems, quarantineEntries } from './testing/chain-links.ts';
import { type OutageProxy, startOutageProxy } from './testing/outage-proxy.ts';
import { appendReceipts, spooledReceipt } from './testing/spooled-fixtures.ts';

let api: TestApi;
let proxy: OutageProxy;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  api = await startTestApi();
  proxy = await startOutageProxy(api.url);
});
afterAll(async () => {
  await proxy.close();
  await api.close();
});
afterEach(async () => {
  await proxy.up().catch(() => {}); // a test that took the API down brings it back
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Harness {
  name: string;
  dir: string;
  spool: Spool<SpooledReceipt>;
  shipper: ReceiptShipper;
  metrics: GatewayMetrics;
  /** This gateway's token, talking to the API directly (not through the outage proxy). */
  direct: ApiClient;
  /** What the shipper was made with: another shipper of the same gateway. */
  options: ReceiptShipperOptions;
}

/** A registered Gateway, its spool in a temp dir, and a shipper reaching the API via the proxy. */
async function gateway(
  name: string,
  options: Partial<ReceiptShipperOptions> = {},
  /** Another API, reached directly. */
  on: TestApi = api,
) {
  const { token, client: direct } = await on.identity(`${name}-id`, ['gateway']);
  await on.operator.call('gateways.create', {
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'Gateway',
      metadata: { name, labels: { env: 'test' } },
      spec: { identity: `${name}-id` },
    },
  });
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-shipper-'));
  const spool = await Spool.open<SpooledReceipt>({ dir: join(dir, 'spool'), maxBytes: 1 << 26 });
  const metrics = createMetrics();
  const shipperOptions: ReceiptShipperOptions = {
    gateway: name,
    spool,
    client: createClient({ baseUrl: on === api ? proxy.url : on.url, token }),
    dir,
    metrics,
    log: pino({ level: 'silent' }),
    batchSize: 20,
    intervalMs: 50,
    pollMs: 10,
    backoff: { initialMs: 20, maxMs: 200 },
    ...options,
  };
  const shipper = new ReceiptShipper(shipperOptions);
  cleanups.push(async () => {
    await shipper.stop();
    await spool.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { name, dir, spool, shipper, metrics, direct, options: shipperOptions } satisfies Harness;
}

async function storedIds(name: string): Promise<string[]> {
  const { items } = await api.operator.call('receipts.list', {
    query: { gateway: name, limit: 500 },
  });
  return items.map((item) => item.id).sort();
}

async function verify(name: string) {
  return api.operator.call('receipts.verify', { params: { name } });
}

async function count<L extends string>(counter: Counter<L>, labels: Partial<Record<L, string>>) {
  const { values } = await counter.get();
  const match = values.filter((v) =>
    Object.entries(labels).every(([k, want]) => v.labels[k as L] === want),
  );
  return match.reduce((sum, v) => sum + v.value, 0);
}

const ids = (records: SpooledReceipt[]) => records.map((r) => r.receipt.id).sort();

describe('ReceiptShipper', () => {
  it('ships 50 receipts exactly once, chain intact, schemas stored, spool empty', async () => {
    const gw = await gateway('ship-50');
    const records = await appendReceipts(gw.spool, gw.name, 50, 'r');
    gw.shipper.start();
    await until(() => gw.spool.stats().depth === 0);
    // What it reports in Gateway.status: the newest receipt the API acknowledged.
    const newest = records[records.length - 1];
    expect(gw.shipper.chainHead()?.head).toEqual({ id: newest?.receipt.id, hash: newest?.hash });

    expect(await storedIds(gw.name)).toEqual(ids(records));
    expect(await verify(gw.name)).toMatchObject({ valid: true, checked: 50 });
    const hashes = new Set(records.flatMap((r) => Object.keys(r.schemas)));
    expect(hashes.size).toBeGreaterThan(5);
    for (const record of records.slice(0, 5)) {
      for (const [hash, declaration] of Object.entries(record.schemas)) {
        const stored = await api.operator.call('receipts.getSchema', { params: { hash } });
        expect(stored).toEqual(declaration);
      }
    }
    expect(await count(gw.metrics.shippedReceipts, { result: 'created' })).toBe(50);
    expect((await gw.metrics.spoolDepth.get()).values[0]?.value).toBe(0);
  });

  it('ships a full batch at once and a partial one when its oldest receipt is due', async () => {
    const gw = await gateway('ship-size-or-time', { batchSize: 20, intervalMs: 1500 });
    gw.shipper.start();
    const started = Date.now();
    await appendReceipts(gw.spool, gw.name, 50, 'r');
    await until(() => gw.spool.stats().depth <= 10);
    expect(Date.now() - started).toBeLessThan(1200);
    expect(gw.spool.stats().depth).toBe(10);
    await until(() => gw.spool.stats().depth === 0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect((await storedIds(gw.name)).length).toBe(50);
  });

  it('acknowledges nothing while the API is down, and ships everything once it is back', async () => {
    const gw = await gateway('ship-outage');
    const first = await appendReceipts(gw.spool, gw.name, 10, 'a');
    expect(await gw.shipper.flush()).toEqual({ acknowledged: 10, quarantined: 0 });

    await proxy.down();
    const more = await appendReceipts(gw.spool, gw.name, 30, 'b');
    await expect(gw.shipper.flush()).rejects.toThrow(/unreachable/);
    gw.shipper.start();
    await until(async () => (await count(gw.metrics.shipFailures, {})) >= 4);
    expect(gw.spool.stats().depth).toBe(30);
    expect(await storedIds(gw.name)).toEqual(ids(first));

    await proxy.up();
    await until(() => gw.spool.stats().depth === 0);
    expect(await storedIds(gw.name)).toEqual(ids([...first, ...more]));
    expect(await verify(gw.name)).toMatchObject({ valid: true, checked: 40 });
    expect(await count(gw.metrics.shippedReceipts, { result: 'created' })).toBe(40);
    expect(await count(gw.metrics.shippedReceipts, { result: 'duplicate' })).toBe(0);
  });

  it('stops promptly while the API is down, leaving the receipts spooled', async () => {
    const gw = await gateway('ship-stop');
    await proxy.down();
    await appendReceipts(gw.spool, gw.name, 5, 'r');
    gw.shipper.start();
    await until(async () => (await count(gw.metrics.shipFailures, {})) >= 1);
    const started = Date.now();
    await gw.shipper.stop();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(gw.spool.stats().depth).toBe(5);
  });

  it('re-ships a batch whose answer was lost as duplicates, not second copies', async () => {
    const gw = await gateway('ship-retry');
    const records = await appendReceipts(gw.spool, gw.name, 50, 'r');
    // The API stores the first 25, but the answer never reaches the gateway: nothing is acked.
    const lost = (await gw.spool.pending(25)).map((p) => p.receipt);
    await gw.direct.call('receipts.ingest', {
      params: { name: gw.name },
      body: {
        receipts: lost.map((record) => record.receipt),
        tool_sets: Object.assign({}, ...lost.map((record) => record.tool_sets)),
      },
    });
    expect(await gw.shipper.flush()).toEqual({ acknowledged: 50, quarantined: 0 });
    expect(await count(gw.metrics.shippedReceipts, { result: 'duplicate' })).toBe(25);
    expect(await count(gw.metrics.shippedReceipts, { result: 'created' })).toBe(25);
    expect(await storedIds(gw.name)).toEqual(ids(records));
    expect(await verify(gw.name)).toMatchObject({ valid: true, checked: 50 });
  });

  it.each([
    {
      reason: 'HashMismatch',
      spoil: (r: SpooledReceipt) => ({ ...r, receipt: { ...r.receipt, model: 'tampered' } }),
    },
    {
      reason: 'Invalid',
      spoil: (r: SpooledReceipt) => {
        const linked = { ...r.receipt, gateway: 'someone-else' };
        const receipt = { ...linked, hash: receiptHash(linked) };
        return { ...r, hash: receipt.hash, receipt };
      },
    },
  ])(
    'quarantines a receipt rejected as $reason, links a stand-in, and ships the rest',
    async ({ reason, spoil }) => {
      const gw = await gateway(`ship-${reason.toLowerCase()}`);
      const before = await appendReceipts(gw.spool, gw.name, 5, 'a');
      const bad = spoil(spooledReceipt(gw.name, `${gw.name}-bad`, 99, gw.spool.chainHead()));
      await gw.spool.append(bad);
      // The gateway's next receipts continue its chain, as they always do: after the bad one.
      const after = await appendReceipts(gw.spool, gw.name, 5, 'c');

      expect(await gw.shipper.flush()).toEqual({ acknowledged: 10, quarantined: 1 });
      expect(gw.spool.stats().depth).toBe(0);
      expect(await storedIds(gw.name)).toEqual(ids([...before, ...after]));
      const entries = await quarantineEntries(gw.shipper.quarantinePath);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        reason,
        seq: 6,
        record: { receipt: { id: `${gw.name}-bad` } },
      });
      expect(entries[0]?.record).toEqual(bad);
      const links = await chainLinks(api, gw.name);
      expect(links.map((link) => link.standIn !== null)).toEqual([
        ...Array(5).fill(false),
        true,
        ...Array(5).fill(false),
      ]);
      expect(links[5]?.standIn).toMatchObject({
        id: bad.receipt.id,
        hash: bad.hash,
        held: { reason },
      });
      expect(chainProblems(links, entries)).toEqual([]);
      expect(await count(gw.metrics.receiptsQuarantined, { reason })).toBe(1);
      expect(gw.shipper.quarantineSummary()).toMatchObject({
        count: 1,
        lastReason: reason,
        recent: [{ id: bad.receipt.id, hash: bad.hash, reason }],
      });
    },
  );

  it('quarantines a receipt too large for the API alone (a 9 MB model) and keeps shipping', async () => {
    const gw = await gateway('ship-too-large', { batchSize: 50 });
    gw.shipper.start();
    const before = await appendReceipts(gw.spool, gw.name, 23, 'a');
    // The reproduction: a receipt over the API's 8 MiB body limit.
    const huge = spooledReceipt(gw.name, `${gw.name}-huge`, 7, gw.spool.chainHead());
    const model = 'm'.repeat(9 * 1024 * 1024);
    const hugeReceipt = { ...huge.receipt, model, hash: receiptHash({ ...huge.receipt, model }) };
    await gw.spool.append({ ...huge, hash: hugeReceipt.hash, receipt: hugeReceipt });
    const after = await appendReceipts(gw.spool, gw.name, 26, 'c');

    await until(() => gw.spool.stats().depth === 0, 30_000);
    expect(await storedIds(gw.name)).toEqual(ids([...before, ...after]));
    expect(gw.shipper.chainHead()?.head.id).toBe(after[after.length - 1]?.receipt.id);
    const entries = await quarantineEntries(gw.shipper.quarantinePath);
    expect(entries.map((e) => [e.record.receipt.id, e.reason])).toEqual([
      [`${gw.name}-huge`, 'RequestEntityTooLarge'],
    ]);
    expect(entries[0]?.record.receipt.model).toHaveLength(model.length);
    expect(entries[0]?.bytes).toBeGreaterThan(model.length);
    const links = await chainLinks(api, gw.name);
    expect(links).toHaveLength(50);
    expect(links[23]?.standIn).toMatchObject({
      id: `${gw.name}-huge`,
      held: { reason: 'RequestEntityTooLarge', bytes: entries[0]?.bytes },
    });
    expect(chainProblems(links, entries)).toEqual([]);
    expect(await count(gw.metrics.receiptsQuarantined, { reason: 'RequestEntityTooLarge' })).toBe(
      1,
    );
    expect((await gw.metrics.quarantinedReceipts.get()).values[0]?.value).toBe(1);

    // And the receipts after it keep coming.
    await appendReceipts(gw.spool, gw.name, 30, 'd');
    await until(() => gw.spool.stats().depth === 0);
    expect(await count(gw.metrics.shippedReceipts, { result: 'created' })).toBe(79);
    expect(chainProblems(await chainLinks(api, gw.name), entries)).toEqual([]);
  });

  it('does not quarantine receipts the same restart already quarantined', async () => {
    const gw = await gateway('ship-requarantine');
    const bad = spooledReceipt(gw.name, `${gw.name}-bad`, 1, null);
    await gw.spool.append({ ...bad, receipt: { ...bad.receipt, model: 'tampered' } });
    await appendReceipts(gw.spool, gw.name, 2, 'c');
    // A crash after the quarantine write, before the acknowledgement: the same record again.
    const again = new ReceiptShipper(gw.options);
    expect(await gw.shipper.flush()).toEqual({ acknowledged: 2, quarantined: 1 });
    await gw.spool.append({ ...bad, receipt: { ...bad.receipt, model: 'tampered' } });
    expect(await again.flush()).toEqual({ acknowledged: 0, quarantined: 1 });
    await again.stop();
    expect(await quarantineEntries(gw.shipper.quarantinePath)).toHaveLength(1);
    expect(again.quarantineSummary().count).toBe(1);
  });

  it('quarantines a broken chain link and every receipt after it instead of blocking', async () => {
    const gw = await gateway('ship-chain-broken');
    await appendReceipts(gw.spool, gw.name, 3, 'a');
    // A fork: this receipt does not continue the chain the API holds.
    await gw.spool.append(
      spooledReceipt(gw.name, `${gw.name}-fork`, 50, `sha256:${'0'.repeat(64)}`),
    );
    await appendReceipts(gw.spool, gw.name, 2, 'b');

    expect(await gw.shipper.flush()).toEqual({ acknowledged: 3, quarantined: 3 });
    expect(gw.spool.stats().depth).toBe(0);
    expect(await count(gw.metrics.receiptsQuarantined, { reason: 'ChainBroken' })).toBe(3);
    const entries = await quarantineEntries(gw.shipper.quarantinePath);
    expect(entries.map((e) => e.record.receipt.id)).toEqual([
      `${gw.name}-fork`,
      `${gw.name}-b-0000`,
      `${gw.name}-b-0001`,
    ]);
    // No stand-in can bridge a fork: the API's chain ends where it did.
    expect((await chainLinks(api, gw.name)).map((link) => link.standIn)).toEqual([
      null,
      null,
      null,
    ]);
  });

  it('drops a declaration the API refuses, loudly, and still ships the receipt', async () => {
    const errors: string[] = [];
    const log = pino({ level: 'error' }, { write: (line: string) => errors.push(line) });
    const gw = await gateway('ship-bad-schema', { log });
    const record = spooledReceipt(gw.name, `${gw.name}-r`, 0, null);
    const wrong = `sha256:${'f'.repeat(64)}`;
    await gw.spool.append({ ...record, schemas: { ...record.schemas, [wrong]: { name: 'x' } } });

    expect(await gw.shipper.flush()).toEqual({ acknowledged: 1, quarantined: 0 });
    expect(errors.join('')).toContain(wrong);
    expect(errors.join('')).toContain('refused a tool declaration');
    const [good] = Object.keys(record.schemas);
    await expect(
      api.operator.call('receipts.getSchema', { params: { hash: good as string } }),
    ).resolves.toBeDefined();
  });

  it('splits a batch the API refuses as too large until the receipt at fault is alone', async () => {
    // The API takes less than the gateway sends (its BODY_LIMIT below SHIP_MAX_BATCH_BYTES).
    const small = await startTestApi({ BODY_LIMIT: String(64 * 1024) });
    cleanups.push(() => small.close());
    const gw = await gateway('ship-split', { batchSize: 40 }, small);
    const before = await appendReceipts(gw.spool, gw.name, 17, 'a');
    const big = spooledReceipt(gw.name, `${gw.name}-big`, 3, gw.spool.chainHead());
    const model = 'm'.repeat(100 * 1024);
    const bigReceipt = { ...big.receipt, model, hash: receiptHash({ ...big.receipt, model }) };
    await gw.spool.append({ ...big, hash: bigReceipt.hash, receipt: bigReceipt });
    const after = await appendReceipts(gw.spool, gw.name, 22, 'c');

    expect(await gw.shipper.flush()).toEqual({ acknowledged: 39, quarantined: 1 });
    const { items } = await small.operator.call('receipts.list', {
      query: { gateway: gw.name, limit: 500 },
    });
    expect(items.map((item) => item.id).sort()).toEqual(ids([...before, ...after]));
    const entries = await quarantineEntries(gw.shipper.quarantinePath);
    expect(entries.map((e) => [e.record.receipt.id, e.reason, e.message])).toEqual([
      [`${gw.name}-big`, 'RequestEntityTooLarge', 'request body is too large'],
    ]);
    const links = await chainLinks(small, gw.name);
    expect(links[17]?.standIn).toMatchObject({ id: `${gw.name}-big` });
    expect(chainProblems(links, entries)).toEqual([]);
    expect(await count(gw.metrics.shipFailures, {})).toBe(0);
  });
});
