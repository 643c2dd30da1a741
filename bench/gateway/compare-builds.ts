import { once } from 'node:events';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { postgresScratchDir } from '@toolgate/db';
import { fiftyToolRequest } from '../core-mediation.ts';
import { streamedRequestBody } from '../gateway.ts';
import { interleavedLatency } from './load.ts';
import { type Measured, measureLatency, measureTtft } from './phases.ts';
import { Processes } from './processes.ts';
import { startBareProxy, startMockProvider, startToolgate } from './toolgate-stack.ts';

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

Environment: ROUNDS (default 8), REQUESTS per round (200), STREAMS per round (100). TRACED=1
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

const progress = (line: string) => process.stdout.write(`  … ${line}\n`);
let sink: ReturnType<typeof createServer> | undefined;
const processes = new Processes();
try {
  const dataDir = await postgresScratchDir('toolgate-compare-builds-');
  const { url: mockUrl, mock } = await startMockProvider(processes);
  const { url: bareUrl, bare } = await startBareProxy(processes, mockUrl);
  const current = await startToolgate(processes, { mockUrl, dataDir, progress, apiNiceness: 19 });
  const base = await current.variant('baseline', {}, resolve(baseline));
  const traced = process.env.TRACED === '1' ? await startTraced(current) : undefined;
  const headers = { authorization: 'Bearer sk-FAKE-toolgate-bench' };
  const targets: Measured[] = [
    { name: 'direct', origin: mockUrl, headers, pgids: [mock.pid] },
    { name: 'bare proxy', origin: bareUrl, headers, pgids: [bare.pid] },
    {
      name: 'toolgate (this checkout)',
      origin: current.url,
      headers,
      pgids: [current.gateway.pid],
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
  const request = fiftyToolRequest();
  const body = JSON.stringify(request);
  progress('warm-up');
  await interleavedLatency(targets, body, requests);
  const latency = await measureLatency(targets, body, rounds, requests, progress);
  const ttft = await measureTtft(targets, streamedRequestBody(request), rounds, streams, progress);
  const ms = (value: number | undefined) => `${(value ?? Number.NaN).toFixed(3)} ms`;
  process.stdout.write(
    `\n${'target'.padEnd(26)}${'added p50'.padStart(12)}${'added p99'.padStart(12)}${'TTFT added'.padStart(12)}\n`,
  );
  for (const { name } of targets.slice(1)) {
    const l = latency.get(name);
    process.stdout.write(
      `${name.padEnd(26)}${ms(l?.addedP50).padStart(12)}${ms(l?.addedP99).padStart(12)}${ms(ttft.get(name)?.addedP50).padStart(12)}\n`,
    );
  }
} finally {
  await processes.stopAll();
  sink?.close();
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
