import { ingestBatchOf } from '@toolgate/core';
import { createPrismaClient } from '@toolgate/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainOf, fixtureReceiptBody } from '../../../api/src/receipts/receipt-fixtures.ts';
import { call, registerGateway } from '../../../api/src/receipts/receipts-testing.ts';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import { type CliRun, runCli } from '../testing/run-cli.ts';

let api: TestApi;
let prisma: ReturnType<typeof createPrismaClient>;
let auditorToken: string;
beforeAll(async () => {
  api = await startTestApi();
  prisma = createPrismaClient(api.database.url);
  auditorToken = (await api.identity('receipts-auditor', ['auditor'])).token;
});
afterAll(async () => {
  await prisma?.$disconnect();
  await api?.close();
});

/** Receipts verification is an auditor's job: run as one. */
function toolgate(...args: string[]): Promise<CliRun> {
  return runCli([...args, '--api-url', api.url, '--token', auditorToken]);
}

/** A registered gateway with `count` chained receipts made by the real engine, ingested. */
async function gatewayWithReceipts(name: string, count: number): Promise<void> {
  const client = await registerGateway(api, name);
  const receipts = chainOf(
    Array.from({ length: count }, (_, i) =>
      fixtureReceiptBody({
        id: `${name}-${i + 1}`,
        gateway: name,
        receivedAt: new Date(Date.UTC(2026, 4, 1) + i * 1000).toISOString(),
        calls: ['read_file'],
      }),
    ),
  );
  const { results } = await call(client, 'receipts.ingest', {
    params: { name },
    body: ingestBatchOf(receipts),
  });
  expect(results.map((r) => r.result)).toEqual(receipts.map(() => 'created'));
}

describe('toolgate receipts verify', () => {
  beforeAll(async () => {
    await gatewayWithReceipts('intact-edge', 5);
    await gatewayWithReceipts('tampered-edge', 5);
    // Someone with database access rewrites the outcome of the third receipt.
    await prisma.$executeRawUnsafe(
      `UPDATE receipts SET body = jsonb_set(body, '{outcome,status}', '500') WHERE id = $1`,
      'tampered-edge-3',
    );
  });

  it('reports an intact chain and exits 0', async () => {
    const run = await toolgate('receipts', 'verify', '--gateway', 'intact-edge');
    expect(run).toEqual({
      code: 0,
      stdout: 'gateway/intact-edge: chain intact, 5 receipts verified\n',
      stderr: '',
    });
    const json = await toolgate('receipts', 'verify', '-g', 'intact-edge', '-o', 'json');
    expect(JSON.parse(json.stdout)).toEqual({ gateway: 'intact-edge', valid: true, checked: 5 });
  });

  it('reports where a tampered chain breaks, prints that receipt, and exits 1', async () => {
    const run = await toolgate('receipts', 'verify', '--gateway', 'tampered-edge');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(
      'gateway/tampered-edge: chain BROKEN at seq 3, receipt tampered-edge-3: hash_mismatch',
    );
    expect(lines[1]).toContain('the receipt was altered');
    expect(lines[2]).toMatch(/^ {2}expected: sha256:[0-9a-f]{64}$/);
    expect(lines[3]).toMatch(/^ {2}actual: {3}sha256:[0-9a-f]{64}$/);
    expect(lines[4]).toBe('  2 receipts before it verified');
    expect(lines[5]).toBe('  first bad receipt:');
    expect(run.stdout).toContain('    id: tampered-edge-3\n');
    expect(run.stdout).toMatch(/\n {4}outcome:\n {6}status: 500\n/);

    const yaml = await toolgate('receipts', 'verify', '-g', 'tampered-edge', '-o', 'json');
    expect(yaml.code).toBe(1);
    expect(JSON.parse(yaml.stdout)).toMatchObject({
      gateway: 'tampered-edge',
      valid: false,
      checked: 2,
      firstBreak: { seq: '3', id: 'tampered-edge-3', reason: 'hash_mismatch' },
      receipt: { id: 'tampered-edge-3', outcome: { status: 500 } },
    });
  });

  it('verifies every registered gateway by default', async () => {
    const run = await toolgate('receipts', 'verify');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('gateway/intact-edge: chain intact, 5 receipts verified\n');
    expect(run.stdout).toContain('gateway/tampered-edge: chain BROKEN at seq 3');
  });

  it('needs a token', async () => {
    const run = await runCli(['receipts', 'verify', '-g', 'intact-edge', '--api-url', api.url]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: a valid bearer token is required');
    expect(run.stderr).toContain('hint: pass --token, set TOOLGATE_TOKEN or run `toolgate login`');
  });
});
