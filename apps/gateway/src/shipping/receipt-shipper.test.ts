import { mkdtemp, readFile, rm } from 'node:fs/promises';
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
import type { QuarantinedReceipt } from './quarantine.ts';
import { ReceiptShipper, type ReceiptShipperOptions } from './receipt-shipper.ts';
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
}

/** A registered Gateway, its spool in a temp dir, and a shipper reaching the API via the proxy. */
async function gateway(name: string, options: Partial<ReceiptShipperOptions> = {}) {
  const { token, client: direct } = await api.identity(`${name}-id`, ['gateway']);
  await api.operator.call('gateways.create', {
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
  const shipper = new ReceiptShipper({
    gateway: name,
    spool,
    client: createClient({ baseUrl: proxy.url, token }),
    dir,
    metrics,
    log: pino({ level: 'silent' }),
    batchSize: 20,
    intervalMs: 50,
    pollMs: 10,
    backoff: { initialMs: 20, maxMs: 200 },
    ...options,
  });
  cleanups.push(async () => {
    await shipper.stop();
    await spool.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { name, dir, spool, shipper, metrics, direct } satisfies Harness;
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
  ])('quarantines a receipt rejected as $reason and ships the rest', async ({ reason, spoil }) => {
    const gw = await gateway(`ship-${reason.toLowerCase()}`);
    const before = await appendReceipts(gw.spool, gw.name, 5, 'a');
    const head = gw.spool.chainHead();
    const bad = spoil(spooledReceipt(gw.name, `${gw.name}-bad`, 99, head));
    await gw.spool.append(bad);
    // The gateway's next receipt continues from the last good link.
    const next = spooledReceipt(gw.name, `${gw.name}-next`, 100, head);
    await gw.spool.append(next);
    const after = await appendReceipts(gw.spool, gw.name, 4, 'c');

    expect(await gw.shipper.flush()).toEqual({ acknowledged: 10, quarantined: 1 });
    expect(gw.spool.stats().depth).toBe(0);
    expect(await storedIds(gw.name)).toEqual(ids([...before, next, ...after]));
    expect(await verify(gw.name)).toMatchObject({ valid: true, checked: 10 });
    const lines = (await readFile(gw.shipper.quarantinePath, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0] as string) as QuarantinedReceipt;
    expect(entry).toMatchObject({ reason, seq: 6, record: { receipt: { id: `${gw.name}-bad` } } });
    expect(entry.record).toEqual(bad);
    expect(await count(gw.metrics.receiptsRejected, { reason })).toBe(1);
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
    expect(await count(gw.metrics.receiptsRejected, { reason: 'ChainBroken' })).toBe(3);
    const text = await readFile(gw.shipper.quarantinePath, 'utf8');
    expect(
      text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).record.receipt.id),
    ).toEqual([`${gw.name}-fork`, `${gw.name}-b-0000`, `${gw.name}-b-0001`]);
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
});
