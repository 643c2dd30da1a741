import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '@toolgate/core/testing';
import { createMockProvider, type MockProvider } from '@toolgate/mock-provider';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../../../../scripts/reliability/figures.ts';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import { chainLinks, chainProblems, quarantineEntries } from '../shipping/testing/chain-links.ts';
import {
  gatewayStatus,
  hideRule,
  openAITools,
  policyObject,
  registerGateway,
  storedReceiptIds,
  untilSynced,
} from './control-plane.ts';
import { readMetric } from './metrics.ts';
import { type GatewayProcess, killAllGateways, restartGateway, startGateway } from './processes.ts';

/**
 * Issue #19 item 2, "shipping poison pill → gateway outage": a receipt the API refuses for good
 * used to be retried forever, every later receipt waited behind it, the spool filled and every
 * request got 503. Here a real gateway process ships to a real API (PostgreSQL) whose body limit
 * is smaller than some receipts: requests with a long tool list make receipts (with their tool
 * set) the API refuses with 413 whatever the gateway does. The gateway must keep serving, store
 * every other receipt, quarantine exactly the bad ones (on its disk, listed in Gateway.status and
 * counted in /metrics, across a restart), lose none, and leave a chain that goes on past them.
 */

const SOURCE = 'apps/gateway/src/faults/poison-pill.trust.test.ts';
const LABELS = { env: 'poison' };
/** Ordinary receipts (and their tool sets) fit; a receipt with 80 tools' tool set does not. */
const API_BODY_LIMIT = 16 * 1024;
/** A hundred-odd receipts: a spool blocked behind a bad receipt fills within the test. */
const SPOOL_MAX_BYTES = 256 * 1024;
const TOOLS = openAITools(['search_code', 'delete_repo', 'read_file']);

let api: TestApi;
let mock: MockProvider;
const dirs: string[] = [];

beforeAll(async () => {
  [api, mock] = await Promise.all([
    startTestApi({ BODY_LIMIT: String(API_BODY_LIMIT) }),
    createMockProvider(),
  ]);
  await api.operator.call('mediationPolicies.create', {
    body: policyObject('no-deletes', LABELS, [hideRule('hide-deletes', 'delete_repo')]),
  });
});

afterAll(async () => {
  await killAllGateways();
  await Promise.all([api?.close(), mock?.close()]);
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Tools enough that the receipt's tool set alone is over the API's body limit. */
function pillTools(pill: number) {
  const names = Array.from({ length: 80 }, (_, i) => `pill${pill}_tool_${i}_${'x'.repeat(40)}`);
  return openAITools(names);
}

async function ask(gateway: GatewayProcess, text: string, tools = TOOLS) {
  const openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  try {
    const { response } = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }], tools })
      .withResponse();
    return { status: response.status, id: response.headers.get('x-toolgate-receipt-id') };
  } catch (error) {
    if (error instanceof OpenAI.APIError) return { status: error.status ?? 0, id: null };
    throw error;
  }
}

/**
 * Paces the agent to what shipping takes away (a loaded machine must not fill the spool just by
 * sending faster than batches go out); a spool blocked behind a bad receipt never gets there.
 */
function shipping(gateway: GatewayProcess) {
  return until(
    async () => (await readMetric(gateway.url, 'toolgate_gateway_spool_depth')) < 30,
    30_000,
    () => `spool depth below 30 (is shipping blocked?)\n${gateway.output()}`,
  );
}

const quarantineOf = async (name: string) => (await gatewayStatus(api, name)).receiptQuarantine;

describe('poison-pill receipts', () => {
  it('are quarantined one by one while the gateway goes on serving and shipping', async () => {
    const name = 'edge-poison';
    const token = await registerGateway(api, name, LABELS);
    const dataDir = await mkdtemp(join(tmpdir(), `toolgate-fault-${name}-`));
    dirs.push(dataDir);
    let gateway = await startGateway({
      name,
      apiUrl: api.url,
      apiToken: token,
      upstreamUrl: mock.url,
      dataDir,
      env: { SPOOL_MAX_BYTES: String(SPOOL_MAX_BYTES), SHIP_BATCH_SIZE: '20' },
    });
    await untilSynced(api, name, 15_000, `${name} Synced=True`);

    const answers: Array<{ status: number; id: string | null }> = [];
    const pills: string[] = [];
    for (let pill = 0; pill < 3; pill++) {
      for (let i = 0; i < 40; i++) {
        if (i % 10 === 0) await shipping(gateway);
        answers.push(await ask(gateway, `good ${pill}.${i}`));
      }
      await shipping(gateway);
      const answer = await ask(gateway, `pill ${pill}`, pillTools(pill));
      answers.push(answer);
      if (answer.id) pills.push(answer.id);
    }
    for (let i = 0; i < 40; i++) {
      if (i % 10 === 0) await shipping(gateway);
      answers.push(await ask(gateway, `after ${i}`));
    }
    const keptServing = answers.every((answer) => answer.status === 200 && answer.id !== null);

    await until(
      async () => (await readMetric(gateway.url, 'toolgate_gateway_spool_depth')) === 0,
      60_000,
      () => `${name}: spool drained\n${gateway.output()}`,
    );
    await until(
      async () => (await quarantineOf(name))?.count === pills.length,
      15_000,
      `${name}: Gateway.status reports ${pills.length} quarantined receipts`,
    );
    const quarantine = await quarantineOf(name);
    const stored = new Set(await storedReceiptIds(api, name));
    const listed = new Set(quarantine?.recent.map((entry) => entry.id));
    const lost = answers.filter((a) => a.id === null || !(stored.has(a.id) || listed.has(a.id)));
    recordFigures({
      source: SOURCE,
      poisonPill: {
        badRecords: pills.length,
        quarantined: quarantine?.count ?? 0,
        lost: lost.length,
        keptServing,
      },
    });

    expect(answers.flatMap((a, i) => (a.status !== 200 ? [i] : []))).toEqual([]);
    expect(keptServing).toBe(true);
    expect(pills).toHaveLength(3);
    expect(lost).toEqual([]);
    expect(stored.size).toBe(answers.length - pills.length);
    expect(quarantine?.recent.map((entry) => [entry.id, entry.reason])).toEqual(
      pills.map((id) => [id, 'RequestEntityTooLarge']),
    );
    expect(quarantine?.lastReason).toBe('RequestEntityTooLarge');
    expect(
      await readMetric(gateway.url, 'toolgate_gateway_receipts_quarantined_total', {
        reason: 'RequestEntityTooLarge',
      }),
    ).toBe(3);
    // The quarantined receipts are on the gateway's disk, in full, and fill the chain's gaps.
    const entries = await quarantineEntries(join(dataDir, 'rejected-receipts.ndjson'));
    expect(entries.map((entry) => entry.record.receipt.id)).toEqual(pills);
    const links = await chainLinks(api, name);
    expect(links).toHaveLength(answers.length);
    expect(links.filter((link) => link.standIn).map((link) => link.id)).toEqual(pills);
    expect(chainProblems(links, entries)).toEqual([]);

    // The quarantine outlives a restart: the count is read back from the file.
    await gateway.kill('SIGTERM');
    gateway = await restartGateway(gateway);
    expect(await readMetric(gateway.url, 'toolgate_gateway_quarantined_receipts')).toBe(3);
    expect((await ask(gateway, 'after the restart')).status).toBe(200);
    await until(
      async () => (await storedReceiptIds(api, name)).length === stored.size + 1,
      30_000,
      `${name}: the receipt after the restart stored`,
    );
    expect((await quarantineOf(name))?.count).toBe(3);
  });
});
