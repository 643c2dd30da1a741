import { Worker } from 'node:worker_threads';
import { createTestDatabase, startTestPostgres } from '@toolgate/db/testing';
import pino from 'pino';
import { createApp } from '../apps/api/src/create-app.ts';
import { ApiEnv } from '../apps/api/src/env.ts';
import { BundleService } from '../apps/api/src/gateways/bundle.service.ts';
import { BootstrapOperator } from '../apps/api/src/identities/bootstrap-operator.ts';
import { TokensService } from '../apps/api/src/identities/tokens.service.ts';
import { ResourceStore } from '../apps/api/src/resources/resource-store.service.ts';
import { SeedService } from '../apps/api/src/resources/seed.service.ts';
import { withCpuProfile } from './cpu-profile.ts';
import type { BenchResult } from './measure.ts';

/** `BENCH_SYNC_GATEWAYS` shrinks (or grows) the fleet; 1,000 is the figure the target is for. */
const GATEWAYS = Number(process.env.BENCH_SYNC_GATEWAYS ?? 1000);
const ROUNDS = 5;
const TARGET_P99_MS = 500;
/**
 * The fleet is spread over this many worker threads (`BENCH_SYNC_WORKERS`), so that one client
 * event loop reading 1,000 answers is not what the bench times.
 */
const WORKERS = Number(process.env.BENCH_SYNC_WORKERS ?? 2);
/** `BENCH_SYNC_GZIP=0`: the fleet asks for the bundle uncompressed (the gateway asks for gzip). */
const GZIP = process.env.BENCH_SYNC_GZIP !== '0';
/** How long the fleet's long-polls may take to be held by the API before a round fails. */
const PARK_TIMEOUT_MS = 60_000;
const SYSTEM = { name: 'bench', roles: ['operator'] as const };

interface FleetGateway {
  name: string;
  token: string;
  etag: string;
}
/** What the fleet's worker (api-sync-fleet.mjs) answers a round with. */
type FleetMessage = { type: 'received'; at: number[] } | { type: 'failed'; message: string };

/**
 * Apply → fleet: 1,000 simulated gateways long-poll their bundle (If-None-Match + wait); an
 * operator applies a policy they all select; we time, per gateway, from the apply's start to
 * receiving the new ETag. Real API, real PostgreSQL (LISTEN/NOTIFY), real HTTP; the fleet polls
 * from worker threads (api-sync-fleet.mjs), not from the API's event loop. Each round applies
 * once all 1,000 polls are held by the API (BundleService.waiting). `BENCH_CPU_PROF=<dir>`
 * profiles the API's thread over the rounds.
 */
export async function runApiSyncBench(): Promise<BenchResult> {
  const progress = (line: string) => process.stdout.write(`  … ${line}\n`);
  progress('starting PostgreSQL and the API');
  const server = await startTestPostgres({});
  const database = await createTestDatabase(server.adminUrl);
  const env = ApiEnv.parse({ LOG_LEVEL: 'silent', PORT: '0' });
  const app = await createApp({ databaseUrl: database.url, env, log: pino({ level: 'silent' }) });
  try {
    await app.get(SeedService).ensureSeeded();
    const operatorToken = (await app.get(BootstrapOperator).ensureOperator()) as string;
    await app.listen(0, '127.0.0.1');
    const url = await app.getUrl();
    const store = app.get(ResourceStore);
    const tokens = app.get(TokensService);
    progress(`registering ${GATEWAYS} gateways`);
    const fleet: FleetGateway[] = [];
    for (let i = 0; i < GATEWAYS; i++) {
      if (i > 0 && i % 200 === 0) progress(`  ${i}/${GATEWAYS} registered`);
      const name = `gw-${i}`;
      await store.create(
        'Identity',
        { metadata: { name }, spec: { type: 'service', roles: ['gateway'] } },
        SYSTEM,
      );
      await store.create(
        'Gateway',
        {
          metadata: { name, labels: { env: 'prod', zone: `z${i % 4}` } },
          spec: { identity: name },
        },
        SYSTEM,
      );
      fleet.push({ name, token: (await tokens.issue(name, {}, SYSTEM)).token, etag: '' });
    }
    const bundleUrl = (name: string, wait: number) =>
      `${url}/apis/toolgate.dev/v1/gateways/${name}/bundle?wait=${wait}`;
    for (const gw of fleet) {
      const response = await fetch(bundleUrl(gw.name, 0), {
        headers: { authorization: `Bearer ${gw.token}` },
      });
      gw.etag = response.headers.get('etag') ?? '';
      await response.arrayBuffer();
    }

    // The fleet long-polls from worker threads; the apply and the API stay in this one.
    const shares = Array.from({ length: WORKERS }, (_, w) =>
      fleet.filter((_, i) => i % WORKERS === w),
    ).filter((share) => share.length > 0);
    const workers = shares.map(
      (share) =>
        new Worker(new URL('./api-sync-fleet.mjs', import.meta.url), {
          workerData: { url, fleet: share, gzip: GZIP },
        }),
    );
    const roundOf = (worker: Worker) =>
      new Promise<number[]>((resolve, reject) => {
        worker.once('message', (message: FleetMessage) =>
          message.type === 'received' ? resolve(message.at) : reject(new Error(message.message)),
        );
        worker.postMessage('round');
      });
    const bundles = app.get(BundleService);
    const latencies: number[] = [];
    const parkTimes: number[] = [];
    const applyTimes: number[] = [];
    try {
      await withCpuProfile('api-sync-api', async () => {
        for (let round = 0; round < ROUNDS; round++) {
          progress(`round ${round + 1}/${ROUNDS}: ${GATEWAYS} long-polls, then apply`);
          const parkStarted = performance.now();
          const received = Promise.all(workers.map(roundOf));
          // What is timed is the wake-up of a fleet whose polls are all held: a real fleet's
          // polls wait for minutes between changes. How long the 1,000 polls took to be held
          // (authenticated, their bundle looked at) is reported beside it.
          while (bundles.waiting < GATEWAYS) {
            if (performance.now() - parkStarted > PARK_TIMEOUT_MS)
              throw new Error(`only ${bundles.waiting}/${GATEWAYS} long-polls held`);
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          parkTimes.push(performance.now() - parkStarted);
          const applyStarted = performance.timeOrigin + performance.now();
          const apply = await fetch(`${url}/apis/toolgate.dev/v1/mediationpolicies`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${operatorToken}`,
              'content-type': 'application/json',
            },
            body: JSON.stringify({
              apiVersion: 'toolgate.dev/v1',
              kind: 'MediationPolicy',
              metadata: { name: `fleet-${round}` },
              spec: {
                selector: { matchLabels: { env: 'prod' } },
                rules: [{ id: 'h', action: 'hide', match: { name: `tool_${round}` } }],
              },
            }),
          });
          applyTimes.push(performance.timeOrigin + performance.now() - applyStarted);
          if (apply.status !== 201)
            throw new Error(`apply failed: ${apply.status} ${await apply.text()}`);
          for (const at of (await received).flat()) latencies.push(at - applyStarted);
        }
      });
    } finally {
      await Promise.all(workers.map((worker) => worker.terminate()));
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const at = (q: number) =>
      sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
    const p99 = at(0.99);
    const passed = p99 < TARGET_P99_MS;
    return {
      name: `api: apply → ${GATEWAYS} long-polling gateways hold the new ETag`,
      passed,
      lines: [
        `${latencies.length} bundle deliveries over ${ROUNDS} applies, the fleet in ${workers.length} worker threads, ${GZIP ? 'gzipped as the gateway asks' : 'uncompressed (BENCH_SYNC_GZIP=0)'}`,
        `${GATEWAYS} long-polls held ${Math.min(...parkTimes).toFixed(0)}–${Math.max(...parkTimes).toFixed(0)} ms after they were sent (before each apply)`,
        `the apply answered ${Math.min(...applyTimes).toFixed(0)}–${Math.max(...applyTimes).toFixed(0)} ms after it was sent; first delivery ${sorted[0]?.toFixed(0)} ms after it (the notification, the snapshot, the first bundle); p50 ${at(0.5).toFixed(0)} ms, p95 ${at(0.95).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${sorted.at(-1)?.toFixed(0)} ms (target p99 < ${TARGET_P99_MS} ms) ${passed ? 'PASS' : 'FAIL'}`,
      ],
    };
  } finally {
    await app.close();
    await database.drop();
    await server.teardown();
  }
}
