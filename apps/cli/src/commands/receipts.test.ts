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
async function gatewayWithReceipts(name: string, count: number, tools?: string[]): Promise<void> {
  const client = await registerGateway(api, name);
  const receipts = chainOf(
    Array.from({ length: count }, (_, i) =>
      fixtureReceiptBody({
        id: `${name}-${i + 1}`,
        gateway: name,
        receivedAt: new Date(Date.UTC(2026, 4, 1) + i * 1000).toISOString(),
        calls: ['read_file'],
        ...(tools ? { tools } : {}),
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
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(
      /^gateway\/intact-edge: chain intact, 5 receipts verified\n {2}head: 5:sha256:[0-9a-f]{64}\n$/,
    );
    const json = await toolgate('receipts', 'verify', '-g', 'intact-edge', '-o', 'json');
    expect(JSON.parse(json.stdout)).toEqual({
      gateway: 'intact-edge',
      valid: true,
      checked: 5,
      head: { seq: '5', id: 'intact-edge-5', hash: expect.stringMatching(/^sha256:/) },
    });
  });

  it('reports where a tampered chain breaks, prints that receipt, and exits 1', async () => {
    const run = await toolgate('receipts', 'verify', '--gateway', 'tampered-edge');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(
      'gateway/tampered-edge: chain BROKEN at seq 3, receipt tampered-edge-3: hash_mismatch (body)',
    );
    expect(lines[1]).toContain('the receipt was altered');
    expect(lines[2]).toContain('the body was edited');
    expect(lines[3]).toMatch(/^ {2}expected: sha256:[0-9a-f]{64}$/);
    expect(lines[4]).toMatch(/^ {2}actual: {3}sha256:[0-9a-f]{64}$/);
    expect(lines[5]).toBe('  2 receipts before it verified');
    expect(lines[6]).toBe('  first altered receipt, as served:');
    expect(run.stdout).toContain('    id: tampered-edge-3\n');
    expect(run.stdout).toMatch(/\n {4}outcome:\n {6}status: 500\n/);

    const yaml = await toolgate('receipts', 'verify', '-g', 'tampered-edge', '-o', 'json');
    expect(yaml.code).toBe(1);
    expect(JSON.parse(yaml.stdout)).toMatchObject({
      gateway: 'tampered-edge',
      valid: false,
      checked: 2,
      firstBreak: { seq: '3', id: 'tampered-edge-3', reason: 'hash_mismatch', field: 'body' },
      receipt: { id: 'tampered-edge-3', outcome: { status: 500 } },
    });
  });

  it('verifies every registered gateway by default', async () => {
    const run = await toolgate('receipts', 'verify');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('gateway/intact-edge: chain intact, 5 receipts verified\n');
    expect(run.stdout).toContain('gateway/tampered-edge: chain BROKEN at seq 3');
  });

  it('shows an edited tool set as the finding at the first receipt using it, and exits 1', async () => {
    // A tool set of its own: tool sets are shared by content, across gateways.
    await gatewayWithReceipts('tool-set-edge', 3, ['read_file', 'tool_set_edge_only']);
    const [{ hash } = { hash: '' }] = await prisma.$queryRawUnsafe<Array<{ hash: string }>>(
      `SELECT tool_set_hash AS hash FROM receipts WHERE id = 'tool-set-edge-1'`,
    );
    await prisma.$executeRawUnsafe(
      `UPDATE tool_sets SET body = jsonb_set(body, '{tools,0,visible_to_provider}', 'false') WHERE hash = $1`,
      hash,
    );
    const run = await toolgate('receipts', 'verify', '--gateway', 'tool-set-edge');
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(
      `gateway/tool-set-edge: chain BROKEN at seq 1, receipt tool-set-edge-1: tool_set_mismatch (${hash})`,
    );
    expect(lines[1]).toContain('the tool set it references was edited');
    expect(lines[3]).toBe(`  expected: ${hash}`);
    expect(lines[5]).toBe('  0 receipts before it verified');
  });

  it('finds the newest receipts deleted against an anchor from an earlier run', async () => {
    await gatewayWithReceipts('short-edge', 4);
    const first = await toolgate('receipts', 'verify', '-g', 'short-edge');
    const anchor = /head: (\S+)/.exec(first.stdout)?.[1] as string;
    expect(anchor).toMatch(/^4:sha256:/);
    expect(
      (await toolgate('receipts', 'verify', '-g', 'short-edge', '--anchor', anchor)).code,
    ).toBe(0);
    for (const table of ['receipts', 'receipt_links']) {
      await prisma.$executeRawUnsafe(`DELETE FROM ${table} WHERE id = 'short-edge-4'`);
    }
    expect((await toolgate('receipts', 'verify', '-g', 'short-edge')).code).toBe(0);
    const run = await toolgate('receipts', 'verify', '-g', 'short-edge', '--anchor', anchor);
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n')[0]).toBe(
      'gateway/short-edge: chain BROKEN at seq 4, no receipt stored: truncated',
    );
    expect(run.stdout).toContain('the chain ends before the anchor');
  });

  it('refuses a malformed anchor, or one for several gateways, as wrong usage', async () => {
    const malformed = await toolgate(
      'receipts',
      'verify',
      '-g',
      'intact-edge',
      '--anchor',
      '4:abc',
    );
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('--anchor: must be SEQ:sha256:');
    const several = await toolgate('receipts', 'verify', '--anchor', `4:sha256:${'a'.repeat(64)}`);
    expect(several.code).toBe(2);
    expect(several.stderr).toContain('--anchor needs exactly one --gateway');
  });

  it('needs a token', async () => {
    const run = await runCli(['receipts', 'verify', '-g', 'intact-edge', '--api-url', api.url]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: a valid bearer token is required');
    expect(run.stderr).toContain('hint: pass --token, set TOOLGATE_TOKEN or run `toolgate login`');
  });
});

describe('toolgate receipts list', () => {
  beforeAll(async () => {
    await gatewayWithReceipts('listed-edge', 3, ['read_file', 'create_pull_request']);
  });

  it('filters by a tool-name substring, sorts oldest first and shows the tools called', async () => {
    const run = await toolgate(
      'receipts',
      'list',
      '--gateway',
      'listed-edge',
      '--tool-contains',
      'PULL',
      '--order',
      'oldest',
    );
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]?.split(/\s{2,}/).at(-1)).toBe('CALLED');
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/)[0])).toEqual([
      'listed-edge-1',
      'listed-edge-2',
      'listed-edge-3',
    ]);
    expect(lines[1]?.split(/\s{2,}/).at(-1)).toBe('read_file');
    const none = await toolgate(
      'receipts',
      'list',
      '--gateway',
      'listed-edge',
      '--tool-contains',
      'zzz',
    );
    expect(none.stdout).toBe('No receipts found.\n');
    const bad = await toolgate('receipts', 'list', '--order', 'sideways');
    expect(bad.code).toBe(2);
  });
});
