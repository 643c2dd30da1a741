import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { compactReceipt, type Receipt } from '@toolgate/core';
import { createPrismaClient } from '@toolgate/db';
import { createTestDatabase, startTestPostgres, type TestDatabase } from '@toolgate/db/testing';
import pg from 'pg';
import type { createApp } from '../apps/api/src/create-app.ts';
import { chainOf, fixtureReceiptBody } from '../apps/api/src/receipts/receipt-fixtures.ts';
import { apiFetch } from '../apps/gateway/src/api-fetch.ts';
import {
  copySink,
  copyTexts,
  FLOOR_SUFFIX,
  type Sink,
  type StoredRound,
  StoredRows,
} from './api-receipts-copy.ts';
import { queryBench } from './api-receipts-queries.ts';
import { gatewayIngestBody } from './api-receipts-wire.ts';
import { withCpuProfile } from './cpu-profile.ts';
import { CpuMeter } from './cpu-time.ts';
import { type BenchResult, median } from './measure.ts';
import { startApiOn } from './receipts-db.ts';

/**
 * Receipts on PostgreSQL, all against one embedded server started here:
 *
 * a. ingest throughput of the same receipts through the API's batch endpoint (HTTP, validation,
 *    hashing, chain check, `INSERT … SELECT FROM unnest` per chunk, the tool sets beside them on
 *    another connection), through `COPY FROM STDIN` into *unindexed* copies of the tables
 *    (`LIKE … INCLUDING DEFAULTS`, no keys, no indexes), a connection per table at once: the
 *    physical floor, the fastest way to land these rows on this machine, and the reference; for
 *    information the same on one connection, through the same COPY into the real, indexed
 *    tables (what the indexes cost), and through a naive Prisma loop of one `createMany` per
 *    row. All of them store the same rows: each receipt, its link (`receipt_links`) and its
 *    tool set if new; the COPYs and the loop get them ready-made, the API derives them from what
 *    a gateway sends, and writes more besides (`receipt_stats`, `receipt_tool_names`,
 *    `receipt_tool_calls`), which the floor does not pay for;
 * b. `GET /receipts?tool=…` latency over a million rows, common to absent tools, with keyset
 *    follow-up pages, including a tool that was common a month ago and is gone now.
 */

const GATEWAYS = 4;
const BATCHES = 40;
const BATCH = 1000;
const ROUNDS = 5;
const BATCHES_PER_ROUND = BATCHES / ROUNDS;
const NAIVE_ROWS = 2000;
const WARMUP_RECEIPTS = 4 * BATCH;
const TARGET_HTTP_VS_FLOOR = 0.35;
const TARGET_HTTP_VS_NAIVE = 5;
/** `BENCH_RECEIPTS=ingest` runs part a only (quick iterations on ingest), `query` part b only. */
const PARTS = process.env.BENCH_RECEIPTS ?? 'ingest,query';

const INGEST_PATH = (gateway: string) => `/apis/toolgate.dev/v1/gateways/${gateway}/receipts`;

const progress = (line: string) => process.stdout.write(`  · ${line}\n`);

export async function runApiReceiptsBench(): Promise<BenchResult> {
  const lines: string[] = [];
  let passed = true;
  const server = await startTestPostgres();
  try {
    if (PARTS.includes('ingest')) {
      const ingest = await ingestBench(server.adminUrl);
      lines.push(...ingest.lines);
      passed &&= ingest.passed;
    }
    if (PARTS.includes('query')) {
      const query = await queryBench(server.adminUrl);
      lines.push(...query.lines);
      passed &&= query.passed;
    }
  } finally {
    await server.teardown();
  }
  return {
    name: 'api-receipts: ingest (HTTP vs unindexed COPY vs indexed COPY vs naive) and queries on 1M rows',
    passed,
    lines,
  };
}

// ——— a. ingest ———

/** Deterministic pseudo-random numbers, so every run ingests the same receipts. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const TOOL_POOL = [
  'search_code',
  'read_file',
  'write_file',
  'list_issues',
  'create_pull_request',
  'delete_branch',
  'run_tests',
  'search_docs',
  ...Array.from({ length: 32 }, (_, i) => `repo_tool_${i}`),
];

/** Per gateway one chain; batches take turns between gateways, each in chain order. */
function makeBatches(): Array<{ gateway: string; receipts: Receipt[] }> {
  const random = lcg(7);
  const perGateway = (BATCHES * BATCH) / GATEWAYS;
  const chains = Array.from({ length: GATEWAYS }, (_, g) => {
    const gateway = `bench-gw-${g}`;
    const start = Date.UTC(2026, 5, 1) + g;
    return { gateway, receipts: benchChain(gateway, perGateway, TOOL_POOL, random, start) };
  });
  const batches: Array<{ gateway: string; receipts: Receipt[] }> = [];
  for (let b = 0; b < BATCHES; b++) {
    const chain = chains[b % GATEWAYS] as { gateway: string; receipts: Receipt[] };
    const offset = Math.floor(b / GATEWAYS) * BATCH;
    batches.push({
      gateway: chain.gateway,
      receipts: chain.receipts.slice(offset, offset + BATCH),
    });
  }
  return batches;
}

/** One gateway's chain of `count` receipts offering tools of `pool`, 250 ms apart from `start`. */
function benchChain(
  gateway: string,
  count: number,
  pool: ReadonlyArray<string>,
  random: () => number,
  start: number,
): Receipt[] {
  const bodies = Array.from({ length: count }, (_, i) => {
    const tools = [
      ...new Set(Array.from({ length: 3 + Math.floor(random() * 4) }, () => pick(pool, random))),
    ];
    const calls = random() < 0.6 ? [pick(tools, random)] : [];
    if (random() < 0.05) calls.push('create_pull_request');
    return fixtureReceiptBody({
      id: `${gateway}-${String(i).padStart(6, '0')}`,
      gateway,
      receivedAt: new Date(start + i * 250).toISOString(),
      tools,
      calls,
      identity:
        random() < 0.2
          ? { service: `svc-${Math.floor(random() * 10)}`, session: `s-${i >> 4}` }
          : { human: `user-${Math.floor(random() * 50)}`, session: `s-${i >> 4}` },
      status: random() < 0.05 ? 502 : 200,
    });
  });
  return chainOf(bodies);
}

function pick<T>(values: ReadonlyArray<T>, random: () => number): T {
  // Squaring skews towards the front of the pool: a few tools are in most requests.
  return values[Math.floor(random() ** 2 * values.length)] as T;
}

async function ingestBench(adminUrl: string): Promise<{ lines: string[]; passed: boolean }> {
  progress(`building ${BATCHES} × ${BATCH} receipts for ${GATEWAYS} gateways (engine + chain)`);
  const batches = makeBatches();
  const all = batches.flatMap((b) => b.receipts);
  const meanBytes = Math.round(
    all.slice(0, 500).reduce((sum, r) => sum + JSON.stringify(compactReceipt(r).stored).length, 0) /
      500,
  );
  const gateways = [...new Set(batches.map((b) => b.gateway))];
  progress('starting two APIs and four plain databases (one per variant)');
  const warmup = makeWarmup();
  const warmupToolSets = new Set(toolSetHashes(warmup));
  if (all.some((receipt) => warmupToolSets.has(compactReceipt(receipt).stored.tool_set_hash))) {
    throw new Error('a measured tool set is among the warm-up ones: it would be stored already');
  }
  const sequential = await httpSink(adminUrl, gateways, warmup);
  const concurrent = await httpSink(adminUrl, gateways, warmup);
  const floor = await copySink(adminUrl, { unindexed: true, parallel: true });
  const floorOne = await copySink(adminUrl, { unindexed: true, parallel: false });
  const copy = await copySink(adminUrl, { unindexed: false, parallel: true });
  const naive = await naiveSink(adminUrl);
  const totals = {
    ...{ sequential: 0, concurrent: 0, floor: 0, floorOne: 0, copy: 0, naive: 0, naiveRows: 0 },
    ...{ httpCpu: 0, floorCpu: 0 },
  };
  const meter = await CpuMeter.open(adminUrl);
  const copyRows = new StoredRows();
  const naiveRows = new StoredRows();
  const ratios: Array<{
    vsFloor: number;
    oneVsFloorOne: number;
    oneVsFloor: number;
    cpuVsFloor: number;
    vsCopy: number;
    vsNaive: number;
  }> = [];
  try {
    // Interleaved rounds, so that whatever else the machine does hits every variant alike.
    for (let round = 0; round < ROUNDS; round++) {
      const slice = batches.slice(round * BATCHES_PER_ROUND, (round + 1) * BATCHES_PER_ROUND);
      const receipts = slice.flatMap((b) => b.receipts);
      const naiveReceipts = receipts.slice(0, NAIVE_ROWS / ROUNDS);
      progress(`round ${round + 1}/${ROUNDS}: ${receipts.length} receipts each way`);
      // Every variant gets its input ready-made: only getting it into PostgreSQL is timed.
      const posts = slice.map((batch) => ({
        gateway: batch.gateway,
        body: gatewayIngestBody(batch.receipts),
        count: batch.receipts.length,
      }));
      const copies = copyTexts(copyRows.of(receipts));
      const rows = naiveRows.of(naiveReceipts);
      // Each variant starts from a collected heap: this process holds every prepared batch, and
      // a major collection landing in one variant's window would be charged to it.
      collectGarbage();
      // The profile outside the measurement: stopping it serializes the profile synchronously
      // (seconds, the inspector's `dispatch`), which must not be charged to HTTP.
      const http = await withCpuProfile(`api-receipts-http-${round + 1}`, () =>
        meter.measure(sequential.url, async () => {
          for (const batch of posts) await sequential.post(batch);
        }),
      );
      // Each gateway ships its batches one after the other (as a gateway does), all at once.
      const conc = await timed(() =>
        Promise.all(
          gateways.map(async (gateway) => {
            for (const batch of posts) if (batch.gateway === gateway) await concurrent.post(batch);
          }),
        ),
      );
      collectGarbage();
      const floorLoad = await meter.measure(floor.url, () => floor.load(copies));
      collectGarbage();
      const floorOneWall = await timed(() => floorOne.load(copies));
      collectGarbage();
      const copyLoad = await meter.measure(copy.url, () => copy.load(copies));
      const [seq, floored, copied] = [http.wall, floorLoad.wall, copyLoad.wall];
      const naively = await timed(() => naive.load(rows));
      totals.sequential += seq;
      totals.concurrent += conc;
      totals.floor += floored;
      totals.floorOne += floorOneWall;
      totals.copy += copied;
      totals.httpCpu += http.cpu;
      totals.floorCpu += floorLoad.cpu;
      totals.naive += naively;
      totals.naiveRows += naiveReceipts.length;
      const rate = (seconds: number, rows = receipts.length) => rows / seconds;
      const perSecond = (seconds: number) => Math.round(rate(seconds)).toLocaleString('en-US');
      progress(
        `  rows/s: HTTP ${perSecond(seq)}, HTTP concurrent ${perSecond(conc)}, floor ${perSecond(floored)} (one connection ${perSecond(floorOneWall)}), indexed COPY ${perSecond(copied)}; CPU s: HTTP ${http.cpu.toFixed(2)} (database ${http.databaseCpu.toFixed(2)}), floor ${floorLoad.cpu.toFixed(2)}, indexed COPY ${copyLoad.cpu.toFixed(2)}`,
      );
      ratios.push({
        // Like with like: batches of several gateways at once against a connection per table,
        // and one batch at a time against one connection.
        vsFloor: rate(conc) / rate(floored),
        oneVsFloorOne: rate(seq) / rate(floorOneWall),
        oneVsFloor: rate(seq) / rate(floored),
        cpuVsFloor: floorLoad.cpu / http.cpu,
        vsCopy: rate(conc) / rate(copied),
        vsNaive: rate(seq) / rate(naively, naiveReceipts.length),
      });
    }
    // The APIs also stored their warm-up's tool sets (none of them a measured one).
    const apiToolSets = copyRows.toolSetHashes.size + warmupToolSets.size;
    await expectRows(sequential.url, all.length, apiToolSets, "gateway <> 'bench-warmup'");
    await expectRows(concurrent.url, all.length, apiToolSets, "gateway <> 'bench-warmup'");
    await expectRows(floor.url, all.length, copyRows.toolSetHashes.size, 'TRUE', FLOOR_SUFFIX);
    await expectRows(floorOne.url, all.length, copyRows.toolSetHashes.size, 'TRUE', FLOOR_SUFFIX);
    await expectRows(copy.url, all.length, copyRows.toolSetHashes.size);
    await expectRows(naive.url, totals.naiveRows, naiveRows.toolSetHashes.size);
  } finally {
    await Promise.all(
      [sequential, concurrent, floor, floorOne, copy, naive, meter].map((sink) => sink.close()),
    );
  }
  const rows = all.length;
  const vsFloor = median(ratios.map((r) => r.vsFloor));
  const oneVsFloorOne = median(ratios.map((r) => r.oneVsFloorOne));
  const oneVsFloor = median(ratios.map((r) => r.oneVsFloor));
  const cpuVsFloor = median(ratios.map((r) => r.cpuVsFloor));
  const vsCopy = median(ratios.map((r) => r.vsCopy));
  const vsNaive = median(ratios.map((r) => r.vsNaive));
  const range = (values: number[]) =>
    `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
  const passed = vsFloor >= TARGET_HTTP_VS_FLOOR && vsNaive >= TARGET_HTTP_VS_NAIVE;
  const rate = (n: number) => `${Math.round(n).toLocaleString('en-US')} rows/s`.padStart(12);
  return {
    passed,
    lines: [
      `ingest of ${rows.toLocaleString('en-US')} receipts (~${meanBytes} B of JSON each), ${GATEWAYS} chains, ${ROUNDS} interleaved rounds:`,
      `  HTTP batches of ${BATCH}, one at a time        ${rate(rows / totals.sequential)}`,
      `  HTTP batches, ${GATEWAYS} gateways at once           ${rate(rows / totals.concurrent)}`,
      `  COPY FROM STDIN, unindexed tables (floor) ${rate(rows / totals.floor)}  (a connection per table)`,
      `  the same on one connection               ${rate(rows / totals.floorOne)}`,
      `  COPY FROM STDIN, the indexed tables      ${rate(rows / totals.copy)}  (a connection per table)`,
      `  CPU per 1000 receipts (this process and the database's backends): HTTP ${((1000 * totals.httpCpu) / rows).toFixed(3)} s, floor ${((1000 * totals.floorCpu) / rows).toFixed(3)} s: ${cpuVsFloor.toFixed(2)}× the floor's receipts per CPU second (median of the rounds; wall time is noisy on shared cores)`,
      `  naive createMany per row (${totals.naiveRows} receipts) ${rate(totals.naiveRows / totals.naive)}`,
      `  HTTP one at a time vs the floor on one connection ${oneVsFloorOne.toFixed(2)}× (rounds ${range(ratios.map((r) => r.oneVsFloorOne))}), vs the floor ${oneVsFloor.toFixed(2)}×`,
      `  HTTP, ${GATEWAYS} gateways at once, vs the floor ${vsFloor.toFixed(2)}× (rounds ${range(ratios.map((r) => r.vsFloor))}; target ≥ ${TARGET_HTTP_VS_FLOOR}×), vs indexed COPY ${vsCopy.toFixed(2)}×; one at a time vs naive ${vsNaive.toFixed(1)}× (target ≥ ${TARGET_HTTP_VS_NAIVE}×), medians of the rounds: ${passed ? 'PASS' : 'FAIL'}`,
    ],
  };
}

/** A full garbage collection, now (`--expose-gc` set late, for this one function). */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return (performance.now() - start) / 1000;
}

/** A listening API on a fresh database, with an operator token and the given gateways. */
async function startApi(
  adminUrl: string,
  gateways: ReadonlyArray<string>,
): Promise<{
  app: Awaited<ReturnType<typeof createApp>>;
  url: string;
  database: TestDatabase;
  operatorToken: string;
  gatewayTokens: Map<string, string>;
  close(): Promise<void>;
}> {
  const database = await createTestDatabase(adminUrl);
  return startApiOn(database, gateways);
}

/** An API taking batches over HTTP, warmed up on a gateway of its own. */
async function httpSink(
  adminUrl: string,
  gateways: ReadonlyArray<string>,
  warmup: ReadonlyArray<Receipt>,
): Promise<Sink & { post(batch: PreparedBatch): Promise<void> }> {
  const api = await startApi(adminUrl, [...gateways, 'bench-warmup']);
  // The client the gateway's shipper posts with (undici's `request`), not `fetch`.
  const send = apiFetch();
  const post = async ({ gateway, body, count }: PreparedBatch) => {
    const response = await send(api.url + INGEST_PATH(gateway), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${api.gatewayTokens.get(gateway)}`,
        'content-type': 'application/json',
      },
      body,
    });
    const json = (await response.json()) as { results?: Array<{ result: string }> };
    const created = json.results?.filter((r) => r.result === 'created').length ?? 0;
    if (response.status !== 200 || created !== count) {
      throw new Error(
        `ingest failed: HTTP ${response.status} ${JSON.stringify(json).slice(0, 300)}`,
      );
    }
  };
  // Warm the JIT on another chain so the measured batches are steady state.
  for (let offset = 0; offset < warmup.length; offset += BATCH) {
    const receipts = warmup.slice(offset, offset + BATCH);
    const body = gatewayIngestBody(receipts);
    await post({ gateway: 'bench-warmup', body, count: receipts.length });
  }
  return { url: api.database.url, close: api.close, post };
}

/** A batch as its gateway sends it: serialized before the clock starts. */
interface PreparedBatch {
  gateway: string;
  body: Buffer;
  count: number;
}

function toolSetHashes(receipts: ReadonlyArray<Receipt>): string[] {
  return receipts.map((receipt) => compactReceipt(receipt).stored.tool_set_hash);
}

/**
 * What each API ingests before the clock starts, on a chain of its own: as many receipts as a
 * round and of the same kind (one batch of 300 left V8 still optimizing through the first
 * rounds, which ran up to a third slower than the last), with tools of their own, so that no
 * measured tool set is stored already.
 */
function makeWarmup(): Receipt[] {
  const pool = TOOL_POOL.map((name) => `warmup_${name}`);
  return benchChain('bench-warmup', WARMUP_RECEIPTS, pool, lcg(11), Date.UTC(2026, 4, 1));
}

/** A plain database loaded by a naive loop: a `createMany` of one row per table and receipt. */
async function naiveSink(
  adminUrl: string,
): Promise<Sink & { load(round: StoredRound): Promise<void> }> {
  const database = await createTestDatabase(adminUrl);
  const prisma = createPrismaClient(database.url);
  await prisma.$connect();
  return {
    url: database.url,
    async load({ toolSets, rows }) {
      const toolSet = new Map(toolSets.map((set) => [set.hash, set.body]));
      for (const { seq, receipt, ...derived } of rows) {
        // The naive loop stores what the COPYs store: the stats columns are not receipts'.
        const {
          calledTools: _called,
          blockedCalls: _blocked,
          withheldCalls: _withheld,
          outcomeClass: _class,
          mediationMs: _mediation,
          upstreamMs: _upstream,
          ...columns
        } = derived;
        const hash = receipt.tool_set_hash;
        const body = toolSet.get(hash);
        if (body !== undefined) {
          await prisma.toolSet.createMany({ data: [{ hash, body }], skipDuplicates: true });
        }
        const { id, gateway, hash: receiptHash } = columns;
        const receivedAt = new Date(columns.receivedAt);
        await prisma.receiptLink.createMany({
          data: [{ id, gateway, seq: BigInt(seq), receivedAt, hash: receiptHash }],
        });
        await prisma.receipt.createMany({
          data: [{ ...columns, seq: BigInt(seq), receivedAt, body: receipt, toolSetHash: hash }],
        });
      }
    },
    async close() {
      await prisma.$disconnect();
      await database.drop();
    },
  };
}

/** The receipts (and as many links) and the tool sets a variant stored. */
async function expectRows(
  url: string,
  receipts: number,
  toolSets: number,
  where = 'TRUE',
  suffix = '',
): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const count = async (table: string, condition = where) =>
      (await client.query(`SELECT count(*)::int AS n FROM ${table}${suffix} WHERE ${condition}`))
        .rows[0].n;
    const found = {
      receipts: await count('receipts'),
      links: await count('receipt_links'),
      // Tool sets belong to no gateway.
      toolSets: await count('tool_sets', 'TRUE'),
    };
    const expected = { receipts, links: receipts, toolSets };
    if (JSON.stringify(found) !== JSON.stringify(expected)) {
      throw new Error(`expected ${JSON.stringify(expected)}, found ${JSON.stringify(found)}`);
    }
  } finally {
    await client.end();
  }
}
