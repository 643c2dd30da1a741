import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { until } from '@toolgate/core/testing';
import { createMockProvider, type MockProvider } from '@toolgate/mock-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectFault, recordFigures } from '../../../../scripts/reliability/figures.ts';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import {
  hideRule,
  openAITools,
  policyObject,
  registerGateway,
  storedReceipt,
  storedReceiptIds,
  verifyChain,
} from './control-plane.ts';
import { readMetric } from './metrics.ts';
import { type GatewayProcess, killAllGateways, restartGateway, startGateway } from './processes.ts';

/**
 * SPEC §4 "gateway crash: no receipt lost, none duplicated", with a real `kill -9` of the gateway
 * process under load (16 concurrent clients, half of them streaming), twice. Every receipt id a
 * client got a complete 200 response for must reach the API, exactly once, the chain intact.
 */

const GATEWAY = 'edge-crash';
const LABELS = { env: 'crash' };
const CLIENTS = 16;
const TOOLS = openAITools(['search_code', 'delete_repo']);

let api: TestApi;
let mock: MockProvider;
let dataDir: string;
let gateway: GatewayProcess;

beforeAll(async () => {
  [api, mock] = await Promise.all([startTestApi(), createMockProvider()]);
  const token = await registerGateway(api, GATEWAY, LABELS);
  await api.operator.call('mediationPolicies.create', {
    body: policyObject('no-deletes', LABELS, [hideRule('hide-deletes', 'delete_repo')]),
  });
  dataDir = await mkdtemp(join(tmpdir(), 'toolgate-fault-crash-'));
  gateway = await startGateway({
    name: GATEWAY,
    apiUrl: api.url,
    apiToken: token,
    upstreamUrl: mock.url,
    dataDir,
    env: { SPOOL_FSYNC: 'request' },
  });
});

afterAll(async () => {
  await killAllGateways();
  await Promise.all([api?.close(), mock?.close()]);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface Load {
  /** Receipt ids of complete 200 responses: the gateway acknowledged these requests. */
  acknowledged: Set<string>;
  /** Receipt ids of responses whose headers arrived but whose body was cut by the kill. */
  interrupted: Set<string>;
  /** Requests currently between `fetch` and the end of the body. */
  inFlight(): number;
  failures(): number;
  stop(): Promise<void>;
}

/** `CLIENTS` loops sending requests to `url` until stopped; odd clients stream. */
function startLoad(url: string): Load {
  const acknowledged = new Set<string>();
  const interrupted = new Set<string>();
  let inFlight = 0;
  let failures = 0;
  let stopped = false;
  const client = async (index: number) => {
    const stream = index % 2 === 1;
    for (let n = 0; !stopped; n++) {
      const script = stream ? { latencyMs: 5, chunkDelayMs: 2 } : { latencyMs: 10 };
      let id: string | null = null;
      inFlight++;
      try {
        const response = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
          body: JSON.stringify({
            model: 'gpt-4o-mini',
            stream,
            messages: [
              { role: 'user', content: `client ${index} request ${n}` },
              { role: 'assistant', content: 'ok' },
              { role: 'user', content: `mock: ${JSON.stringify(script)}` },
            ],
            tools: TOOLS,
          }),
          signal: AbortSignal.timeout(10_000),
        });
        id = response.headers.get('x-toolgate-receipt-id');
        // Rejects when the connection dies before the last byte (chunked or content-length).
        const text = await response.text();
        const complete = stream
          ? text.endsWith('data: [DONE]\n\n') && !text.includes('"error"')
          : response.status === 200;
        if (response.status === 200 && complete && id) acknowledged.add(id);
        else {
          failures++;
          if (id) interrupted.add(id);
        }
      } catch {
        failures++;
        if (id) interrupted.add(id);
        await sleep(10); // the gateway is down: do not spin
      } finally {
        inFlight--;
      }
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, index) => client(index));
  return {
    acknowledged,
    interrupted,
    inFlight: () => inFlight,
    failures: () => failures,
    async stop() {
      stopped = true;
      await Promise.all(clients);
    },
  };
}

const SOURCE = 'apps/gateway/src/faults/crash.test.ts';

describe('gateway crash', () => {
  it('kill -9 under load, twice (fsync per request, then on an interval): every acknowledged receipt stored exactly once, chain intact', async () => {
    const load = startLoad(gateway.url);
    const kills: Array<{ sentAt: number; diedBy: number; inFlight: number }> = [];
    const faults: Array<{ survived(): void }> = [];
    try {
      for (let round = 0; round < 2; round++) {
        // Let the load run until a good number of requests went through this incarnation.
        const before = load.acknowledged.size;
        await until(() => load.acknowledged.size >= before + 300, 15_000, 'load running');
        await sleep(200);
        const sentAt = Date.now();
        const inFlight = load.inFlight();
        faults.push(injectFault(SOURCE, 'gateway kill -9 under load'));
        await gateway.kill('SIGKILL');
        expect((await gateway.exited).signal).toBe('SIGKILL');
        kills.push({ sentAt, diedBy: Date.now(), inFlight });
        // The first incarnation fsyncs before each answer; the second on an interval (the
        // default): a kill -9 must not lose what it answered either (written to the file
        // before the answer; the page cache outlives the process).
        gateway =
          round === 0
            ? await startGateway({ ...gateway.options, env: { SPOOL_FSYNC: 'interval' } })
            : await restartGateway(gateway);
      }
      const before = load.acknowledged.size;
      await until(() => load.acknowledged.size >= before + 200, 15_000, 'load after restart');
    } finally {
      await load.stop();
    }
    expect(load.failures()).toBeGreaterThan(0); // the kills did hit requests

    await until(
      async () => (await readMetric(gateway.url, 'toolgate_gateway_spool_depth')) === 0,
      30_000,
      'spool drained',
    );
    const stored = await storedReceiptIds(api, GATEWAY);
    const storedSet = new Set(stored);
    expect(storedSet.size).toBe(stored.length); // no id stored twice

    // Nothing a client saw completed is lost.
    const missing = [...load.acknowledged].filter((id) => !storedSet.has(id));
    expect(missing).toEqual([]);

    // Extra ids are receipts of requests in flight at a kill: their receipt was durably spooled
    // (so it must ship) but the process died before the client had the whole response — or
    // before it had even the headers, so some extras have no id on the client side. Any other
    // extra would be a receipt the spool never should have written. So: at most the requests in
    // flight at the two kills, each completed just before a kill, each a valid 200 answer.
    const extras = stored.filter((id) => !load.acknowledged.has(id));
    const inFlightAtKills = kills.reduce((sum, kill) => sum + kill.inFlight, 0);
    expect(extras.length).toBeLessThanOrEqual(inFlightAtKills);
    for (const id of extras) {
      const receipt = await storedReceipt(api, id);
      expect(receipt.gateway).toBe(GATEWAY);
      expect(receipt.outcome.status).toBe(200);
      const completed = Date.parse(receipt.timestamps.completed_at);
      const nearKill = kills.some(
        (kill) => completed <= kill.diedBy && completed > kill.sentAt - 5000,
      );
      expect(nearKill, `extra ${id} completed at ${receipt.timestamps.completed_at}`).toBe(true);
    }
    // A response either completed or it did not: an interrupted one is never counted as acked
    // (if its receipt is stored, it is one of the extras above).
    for (const id of load.interrupted) expect(load.acknowledged.has(id)).toBe(false);

    const verification = await verifyChain(api, GATEWAY);
    expect(verification).toMatchObject({ valid: true, checked: stored.length });
    for (const fault of faults) fault.survived();
    // Sent: every response a client received; stored: those of them the API holds.
    const storedAcknowledged = [...load.acknowledged].filter((id) => storedSet.has(id)).length;
    recordFigures({
      source: SOURCE,
      receipts: { sent: load.acknowledged.size, stored: storedAcknowledged },
    });
    console.info(
      `${load.acknowledged.size} acknowledged, ${stored.length} stored, ${extras.length} extras ` +
        `(in flight at the kills: ${kills.map((k) => k.inFlight).join(', ')}; ` +
        `interrupted with an id: ${load.interrupted.size})`,
    );
  }, 60_000);
});
