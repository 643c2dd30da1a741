import { once } from 'node:events';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { postgresScratchDir } from '@toolgate/db';
import { Client } from 'undici';
import { fiftyToolRequest, TEN_RULES } from '../core-mediation.ts';
import { streamedRequestBody } from '../gateway.ts';
import { provision } from './call-time.ts';
import { measureBlocks } from './floor.ts';
import { interleavedLatency, post } from './load.ts';
import { type Measured, measureLatency, measureTtft } from './phases.ts';
import { Processes } from './processes.ts';
import {
  startBareProxy,
  startMockProvider,
  startStaticMock,
  startToolgate,
} from './toolgate-stack.ts';

const HELP = `Compares two builds of the gateway in one process tree: the mock, the bare proxy,
Toolgate built from this checkout and Toolgate from a baseline build, interleaved request by
request (added p50/p99 at concurrency 1, streamed time to first token). For changes too small
for \`pnpm bench gateway\`'s run-to-run noise.

  node --import tsx bench/gateway/compare-builds.ts <baseline.mjs>

Make the baseline from the commit to compare with (the file must be inside apps/gateway, so
it resolves the gateway's dependencies), then come back:

  git stash   # or: git checkout <commit>
  node --import tsx apps/gateway/scripts/build.ts apps/gateway/.baseline/main.mjs
  git stash pop

Environment: ROUNDS (default 8), REQUESTS per round (200), STREAMS per round (100). STATIC=1:
every target on the static mock (the floor of \`pnpm bench gateway\`, floor.ts), measured
interleaved and in blocks (BLOCK requests per target, default 1500), no streaming. TRACED=1
adds this checkout with tracing on (OTLP http/protobuf to a sink in this process that reads
and drops what it gets): what tracing costs when it is on (docs/observability.md). The
gateways inherit this process's environment: leave OTEL_* unset for the others.`;

const baseline = process.argv[2];
if (!baseline || baseline === '--help' || baseline === '-h') {
  process.stdout.write(`${HELP}\n`);
  process.exit(baseline ? 0 : 2);
}
const rounds = Number(process.env.ROUNDS ?? 8);
const requests = Number(process.env.REQUESTS ?? 200);
const streams = Number(process.env.STREAMS ?? 100);
const staticMock = process.env.STATIC === '1';
const blockRequests = Number(process.env.BLOCK ?? 1500);

const progress = (line: string) => process.stdout.write(`  … ${line}\n`);
let sink: ReturnType<typeof createServer> | undefined;
const processes = new Processes();
try {
  const dataDir = await postgresScratchDir('toolgate-compare-builds-');
  const real = await startMockProvider(processes);
  const headers = { authorization: 'Bearer sk-FAKE-toolgate-bench' };
  const request = fiftyToolRequest();
  const body = JSON.stringify(request);
  // STATIC=1: the static mock answers what the real one answers to the request.
  const { url: mockUrl, mock } = staticMock
    ? await startStaticMock(processes, await replyOf(real.url, body, headers))
    : real;
  const { url: bareUrl, bare } = await startBareProxy(processes, mockUrl);
  const current = await startToolgate(processes, {
    mockUrl: real.url,
    dataDir,
    progress,
    apiNiceness: 19,
  });
  // Each process its own gateway identity and receipt chain (provision), the same ten rules.
  const own = async (name: string) => {
    const { token } = await provision(current, name, TEN_RULES);
    return { OPENAI_BASE_URL: mockUrl, GATEWAY_NAME: name, API_TOKEN: token };
  };
  const mine = staticMock
    ? await current.variant('current-static', await own('bench-current'))
    : current;
  const base = await current.variant('baseline', await own('bench-baseline'), resolve(baseline));
  const traced = process.env.TRACED === '1' ? await startTraced(current) : undefined;
  const targets: Measured[] = [
    { name: 'direct', origin: mockUrl, headers, pgids: [mock.pid] },
    { name: 'bare proxy', origin: bareUrl, headers, pgids: [bare.pid] },
    {
      name: 'toolgate (this checkout)',
      origin: mine.url,
      headers,
      pgids: [mine.gateway.pid],
    },
    { name: 'toolgate (baseline)', origin: base.url, headers, pgids: [base.gateway.pid] },
    ...(traced
      ? [
          {
            name: 'toolgate (tracing on)',
            origin: traced.url,
            headers,
            pgids: [traced.gateway.pid],
          },
        ]
      : []),
  ];
  progress('warm-up');
  await interleavedLatency(targets, body, requests);
  const latency = await measureLatency(targets, body, rounds, requests, progress);
  const ttft = staticMock
    ? undefined
    : await measureTtft(targets, streamedRequestBody(request), rounds, streams, progress);
  const blocks = staticMock
    ? await measureBlocks(targets, body, {
        rounds: Math.max(3, Math.round(rounds / 2)),
        requests: blockRequests,
        directName: 'direct',
        progress,
      })
    : undefined;
  const ms = (value: number | undefined) => `${(value ?? Number.NaN).toFixed(3)} ms`;
  const last = staticMock ? 'blocks p50' : 'TTFT added';
  process.stdout.write(
    `\n${'target'.padEnd(26)}${'added p50'.padStart(12)}${'added p99'.padStart(12)}${last.padStart(12)}\n`,
  );
  for (const { name } of targets.slice(1)) {
    const l = latency.get(name);
    const third = staticMock ? blocks?.get(name)?.addedP50 : ttft?.get(name)?.addedP50;
    process.stdout.write(
      `${name.padEnd(26)}${ms(l?.addedP50).padStart(12)}${ms(l?.addedP99).padStart(12)}${ms(third).padStart(12)}\n`,
    );
  }
} finally {
  await processes.stopAll();
  sink?.close();
}

/** What the real mock answers to `body`: the static mock's reply. */
async function replyOf(url: string, body: string, headers: Record<string, string>) {
  const client = new Client(url);
  try {
    return (await post(client, { name: 'mock', origin: url, headers }, body)).text;
  } finally {
    await client.close();
  }
}

/** This checkout with tracing on, exporting to an OTLP sink that drops what it receives. */
async function startTraced(current: Awaited<ReturnType<typeof startToolgate>>) {
  sink = createServer((request, response) => {
    request.resume();
    request.on('end', () =>
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(),
    );
  });
  sink.listen(0, '127.0.0.1');
  await once(sink, 'listening');
  const address = sink.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return current.variant('traced', { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` });
}
