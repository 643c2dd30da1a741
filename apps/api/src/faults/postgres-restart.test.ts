import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiClient } from '@toolgate/contract';
import { ingestBatchOf, type Receipt } from '@toolgate/core';
import { until } from '@toolgate/core/testing';
import {
  type EmbeddedPostgresHandle,
  postgresScratchDir,
  startEmbeddedPostgres,
} from '@toolgate/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectFault, recordFigures } from '../../../../scripts/reliability/figures.ts';
import { chainOf, fixtureReceiptBody } from '../receipts/receipt-fixtures.ts';
import { call } from '../receipts/receipts-testing.ts';
import { startTestApi, type TestApi } from '../testing/test-api.ts';

/**
 * PostgreSQL restarted under receipt ingest. While it is down every request that needs it is a
 * 503 `Status` a client can act on (never a 500, never a stack trace); the API reconnects by
 * itself when it is back — queries, and the LISTEN connection that wakes long-polls — and
 * gateways that simply retry their batches end up with every receipt stored exactly once,
 * chains intact. The server is this test's own embedded PostgreSQL (own directory and port),
 * stopped (fast shutdown, in-flight transactions cut) and started again on the same port.
 */

const SOURCE = 'apps/api/src/faults/postgres-restart.test.ts';
const P = '/apis/toolgate.dev/v1';
const LABELS = { env: 'pg-restart' };
/** Three gateways ship at once, so the shutdown cuts transactions in flight. */
const GATEWAYS = ['pg-restart-a', 'pg-restart-b', 'pg-restart-c'];
const BATCHES = 30;
const BATCH_SIZE = 10;
const FLAGS = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];

let dir: string;
let postgres: EmbeddedPostgresHandle;
let api: TestApi;
const clients = new Map<string, { token: string; client: ApiClient }>();

async function startPostgres(port?: number): Promise<EmbeddedPostgresHandle> {
  return startEmbeddedPostgres({
    dataDir: join(dir, 'data'),
    ...(port !== undefined ? { port } : {}),
    postgresFlags: FLAGS.flatMap((setting) => ['-c', setting]),
  });
}

beforeAll(async () => {
  dir = await postgresScratchDir('toolgate-pg-restart-');
  postgres = await startPostgres();
  api = await startTestApi({}, { adminUrl: postgres.adminUrl });
  for (const name of GATEWAYS) {
    clients.set(name, await api.identity(`${name}-identity`, ['gateway']));
    await api.operator.call('gateways.create', {
      body: {
        apiVersion: 'toolgate.dev/v1',
        kind: 'Gateway',
        metadata: { name, labels: LABELS },
        spec: { identity: `${name}-identity` },
      },
    });
  }
}, 120_000);

afterAll(async () => {
  // The whole cluster goes, so its databases need no dropping (and it may be down if we failed).
  await api?.app.close();
  await postgres?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  text: string;
}

async function send(path: string, init: RequestInit & { token: string }): Promise<Answer> {
  try {
    const response = await api.fetch(path, { ...init, signal: AbortSignal.timeout(20_000) });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    return { status: 0, text: (error as Error).message };
  }
}

/** Why an answer is not the 503 Status a client can act on, or undefined when it is. */
function notUnavailable(answer: Answer): string | undefined {
  let status: { kind?: unknown; code?: unknown; reason?: unknown } = {};
  try {
    status = JSON.parse(answer.text);
  } catch {
    // judged below
  }
  if (status.kind !== 'Status' || status.code !== 503 || status.reason !== 'ServiceUnavailable') {
    return `HTTP ${answer.status} ${answer.text.slice(0, 300)}`;
  }
  if (/\n\s+at |\.ts:\d+|node_modules|prisma|ECONNREFUSED|127\.0\.0\.1/i.test(answer.text)) {
    return `internals in ${answer.text.slice(0, 300)}`;
  }
  return undefined;
}

/** Everything here waits on a restarting PostgreSQL: a minute is the patience. */
const waitFor = (check: () => boolean | Promise<boolean>, what: string) =>
  until(check, 60_000, what);

async function storedIds(gateway: string): Promise<string[]> {
  const ids: string[] = [];
  let next: string | undefined;
  do {
    const page = await call(api.operator, 'receipts.list', {
      query: { gateway, limit: 500, ...(next ? { continue: next } : {}) },
    });
    ids.push(...page.items.map((item) => item.id));
    next = page.metadata.continue;
  } while (next);
  return ids;
}

describe('PostgreSQL restarted during receipt ingest', () => {
  it('answers 503 while it is down, recovers by itself, loses and duplicates nothing', async () => {
    const chains = new Map<string, Receipt[]>(
      GATEWAYS.map((gateway) => [
        gateway,
        chainOf(
          Array.from({ length: BATCHES * BATCH_SIZE }, (_, i) =>
            fixtureReceiptBody({
              id: `${gateway}-${String(i + 1).padStart(4, '0')}`,
              gateway,
              receivedAt: new Date(Date.UTC(2026, 4, 1) + i * 1000).toISOString(),
              calls: i % 3 === 0 ? ['read_file'] : [],
            }),
          ),
        ),
      ]),
    );
    const seen: Record<string, number> = {};
    const unexpected: string[] = [];
    const shipped = new Map(GATEWAYS.map((gateway) => [gateway, 0]));
    let unavailable = 0;
    let stopShipping = false;

    // Each gateway's shipper: its batches in order, each retried as is until the API takes it.
    const ship = async (gateway: string) => {
      const chain = chains.get(gateway) as Receipt[];
      const { token } = clients.get(gateway) as { token: string };
      for (let b = 0; b < BATCHES && !stopShipping; b++) {
        const receipts = chain.slice(b * BATCH_SIZE, (b + 1) * BATCH_SIZE);
        while (!stopShipping) {
          const answer = await send(`${P}/gateways/${gateway}/receipts`, {
            method: 'POST',
            token,
            body: JSON.stringify(ingestBatchOf(receipts)),
          });
          seen[answer.status] = (seen[answer.status] ?? 0) + 1;
          if (answer.status === 200) {
            const { results } = JSON.parse(answer.text) as { results: Array<{ result: string }> };
            const bad = results.filter((r) => r.result !== 'created' && r.result !== 'duplicate');
            if (bad.length > 0) unexpected.push(`${gateway} batch ${b}: ${JSON.stringify(bad)}`);
            shipped.set(gateway, b + 1);
            break;
          }
          const wrong = notUnavailable(answer);
          if (wrong) unexpected.push(`${gateway} batch ${b}: ${wrong}`);
          else unavailable++;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    };
    const shippers = Promise.all(GATEWAYS.map(ship));
    const shippedAtLeast = (n: number) => [...shipped.values()].every((count) => count >= n);

    try {
      await waitFor(() => shippedAtLeast(8) || unexpected.length > 0, 'eight batches each');
      const port = postgres.port;
      const fault = injectFault(SOURCE, 'PostgreSQL restarted during receipt ingest');
      await postgres.stop();

      // Down: ingest retries see 503s; readiness, reads, auth and writes answer 503 too.
      await waitFor(() => unavailable >= 10 || unexpected.length > 0, 'ingest answered 503');
      const ready = await send('/readyz', { token: '' });
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.text)).toEqual({
        status: 'unavailable',
        checks: { database: 'unavailable' },
      });
      const [first] = GATEWAYS as [string];
      const gatewayToken = clients.get(first)?.token as string;
      for (const [path, init] of [
        [`${P}/receipts?gateway=${first}`, { token: api.operatorToken }],
        [`${P}/whoami`, { token: api.operatorToken }],
        [`${P}/gateways/${first}/bundle`, { token: gatewayToken }],
        [
          `${P}/mediationpolicies`,
          {
            token: api.operatorToken,
            method: 'POST',
            body: JSON.stringify({
              apiVersion: 'toolgate.dev/v1',
              kind: 'MediationPolicy',
              metadata: { name: 'written-while-down' },
              spec: { rules: [] },
            }),
          },
        ],
      ] as const) {
        expect(notUnavailable(await send(path, init)), path).toBeUndefined();
      }
      expect((await send('/healthz', { token: '' })).status).toBe(200); // the process lives

      postgres = await startPostgres(port);
      await waitFor(() => shippedAtLeast(BATCHES) || unexpected.length > 0, 'every batch shipped');
      stopShipping = true;
      await shippers;
      expect(unexpected).toEqual([]);

      // Nothing lost, nothing twice, every chain whole.
      let stored = 0;
      for (const [gateway, chain] of chains) {
        const ids = await storedIds(gateway);
        stored += ids.length;
        expect(ids.length).toBe(chain.length);
        expect(new Set(ids).size).toBe(chain.length);
        expect([...ids].sort()).toEqual(chain.map((r) => r.id).sort());
        expect(
          await call(api.operator, 'receipts.verify', { params: { name: gateway } }),
        ).toMatchObject({
          gateway,
          valid: true,
          checked: chain.length,
        });
      }
      expect((await send('/readyz', { token: '' })).status).toBe(200);
      expect(
        (await api.fetch(`${P}/mediationpolicies/written-while-down`, { token: api.operatorToken }))
          .status,
      ).toBe(404);

      // The LISTEN connection is back too: a held long-poll wakes on a new selecting policy.
      const gateway = clients.get(first)?.client as ApiClient;
      const current = await gateway.raw('sync.bundle', { params: { name: first } });
      await current.body?.cancel();
      const etag = current.headers.get('etag') as string;
      const poll = gateway.raw('sync.bundle', {
        params: { name: first },
        query: { wait: 30 },
        headers: { 'if-none-match': etag },
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await api.operator.call('mediationPolicies.create', {
        body: {
          apiVersion: 'toolgate.dev/v1',
          kind: 'MediationPolicy',
          metadata: { name: 'after-restart' },
          spec: {
            selector: { matchLabels: LABELS },
            rules: [{ id: 'hide', action: 'hide', match: { name: 'delete_repo' } }],
          } as never,
        },
      });
      const woken = await poll;
      expect(woken.status).toBe(200);
      expect(woken.headers.get('etag')).not.toBe(etag);
      await woken.body?.cancel();

      fault.survived();
      const sent = [...chains.values()].reduce((sum, chain) => sum + chain.length, 0);
      recordFigures({ source: SOURCE, receipts: { sent, stored } });
      console.info(`answers during the run: ${JSON.stringify(seen)}`);
    } finally {
      stopShipping = true;
      await shippers.catch(() => undefined);
    }
  }, 180_000);
});
