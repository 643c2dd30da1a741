import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@toolgate/contract';
import { postgresScratchDir } from '@toolgate/db';
import { Pool } from 'undici';
import { fiftyToolRequest } from '../core-mediation.ts';
import { Processes, type Started } from '../gateway/processes.ts';
import { startMockProvider, startToolgate } from '../gateway/toolgate-stack.ts';

/**
 * The soak: the whole stack as processes — the mock provider, the API (its own embedded
 * PostgreSQL, or `databaseUrl`), a gateway with the ten-rule policy and receipts on — driven at
 * a steady rate (open loop: requests leave on schedule whether or not earlier ones finished) for
 * a fixed time. Then: every request answered without error, the spool drained, the receipts the
 * API stores are exactly the requests made (same ids, chain valid), and each process's resident
 * memory at the start (after warm-up) and at the end.
 */

export interface SoakOptions {
  seconds: number;
  /** Requests per second, steady. */
  rate: number;
  /** Warm-up before the start RSS is taken (its requests count like any other). */
  warmupSeconds: number;
  /** An empty database for the API; an embedded PostgreSQL under the run's directory otherwise. */
  databaseUrl?: string;
  /** Fail when a process's RSS grew more than this factor (and 64 MiB) over the run. */
  maxRssGrowth?: number;
  progress?: (line: string) => void;
}

export interface SoakReport {
  passed: boolean;
  failures: string[];
  requests: number;
  errors: number;
  firstError?: string;
  /** Requests that left more than a second behind schedule (the rate was not held). */
  late: number;
  seconds: number;
  targetRate: number;
  achievedRate: number;
  maxInFlight: number;
  spoolDrained: boolean;
  drainSeconds: number;
  receiptsStored: number;
  chainValid: boolean;
  rssMiB: Record<string, { start: number; end: number }>;
  lines: string[];
}

/** The mix of requests: a 50-tool OpenAI request, a streamed one with a tool call, Anthropic. */
function requestMix(): Array<{ path: string; body: string; headers: Record<string, string> }> {
  const openai = { authorization: 'Bearer sk-soak', 'content-type': 'application/json' };
  const anthropic = {
    'x-api-key': 'sk-soak',
    'anthropic-version': '2023-06-01',
    'content-type': 'application/json',
  };
  const tools = (fiftyToolRequest().tools as unknown[]).slice(0, 8);
  return [
    { path: '/v1/chat/completions', body: JSON.stringify(fiftyToolRequest()), headers: openai },
    {
      path: '/v1/chat/completions',
      headers: openai,
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        stream: true,
        messages: [
          {
            role: 'user',
            content: `mock: ${JSON.stringify({ call: 'tool_3', arguments: { repo: 'acme/app' } })}`,
          },
        ],
        tools,
      }),
    },
    {
      path: '/v1/messages',
      headers: anthropic,
      body: JSON.stringify({
        model: 'mock-claude',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Summarize the retry settings.' }],
        tools: [
          { name: 'search_code', input_schema: { type: 'object', properties: {} } },
          { name: 'tool_1', input_schema: { type: 'object', properties: {} } },
        ],
      }),
    },
  ];
}

/** Resident set size of a process, MiB (0 where /proc is not there). */
function rssMiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}

/** RSS of every live process in a process group (the API and its embedded PostgreSQL), MiB. */
function groupRssMiB(pgid: number): number {
  let total = 0;
  for (const entry of readdirSyncSafe('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) total += rssMiB(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

function readdirSyncSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

async function metric(gatewayUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : Number.NaN;
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const progress = options.progress ?? (() => {});
  const processes = new Processes();
  const dataDir = await postgresScratchDir('toolgate-soak-');
  try {
    progress('starting the mock provider');
    const { url: mockUrl, mock } = await startMockProvider(processes);
    const stack = await startToolgate(processes, {
      mockUrl,
      dataDir,
      progress,
      gatewayEnv: { ANTHROPIC_BASE_URL: mockUrl, SHIP_INTERVAL_MS: '250' },
      ...(options.databaseUrl ? { apiEnv: { DATABASE_URL: options.databaseUrl } } : {}),
    });
    const measured: Array<[string, Started]> = [
      ['gateway', stack.gateway],
      ['api', stack.api],
      ['mock', mock],
    ];
    return await drive(options, stack, measured, progress);
  } finally {
    await processes.stopAll();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function drive(
  options: SoakOptions,
  stack: { url: string; apiUrl: string; operatorToken: string },
  measured: Array<[string, Started]>,
  progress: (line: string) => void,
): Promise<SoakReport> {
  const mix = requestMix();
  const pool = new Pool(stack.url, { connections: 32, pipelining: 1, keepAliveTimeout: 30_000 });
  const ids = new Set<string>();
  let requests = 0;
  let errors = 0;
  let late = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let firstError: string | undefined;
  const pending = new Set<Promise<void>>();

  const send = async (index: number) => {
    const request = mix[index % mix.length] as (typeof mix)[number];
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      const response = await pool.request({
        method: 'POST',
        path: request.path,
        headers: request.headers,
        body: request.body,
        headersTimeout: 60_000,
        bodyTimeout: 60_000,
      });
      const text = await response.body.text();
      const id = response.headers['x-toolgate-receipt-id'];
      if (typeof id === 'string') ids.add(id);
      if (response.statusCode !== 200 || text.includes('"type":"error"')) {
        errors++;
        firstError ??= `HTTP ${response.statusCode} ${text.slice(0, 200)}`;
      }
    } catch (error) {
      errors++;
      firstError ??= (error as Error).message;
    } finally {
      inFlight--;
    }
  };

  const totalSeconds = options.warmupSeconds + options.seconds;
  const total = Math.round(totalSeconds * options.rate);
  const intervalMs = 1000 / options.rate;
  const rssStart: Record<string, number> = {};
  progress(
    `load: ${options.rate} req/s for ${options.warmupSeconds} s warm-up + ${options.seconds} s`,
  );
  const started = performance.now();
  let tookStartRss = false;
  for (let i = 0; i < total; i++) {
    const due = started + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    else if (wait < -1000) late++;
    if (!tookStartRss && performance.now() - started >= options.warmupSeconds * 1000) {
      tookStartRss = true;
      for (const [name, process] of measured) rssStart[name] = rssMiB(process.pid);
      if (measured.some(([name]) => name === 'api')) {
        rssStart['api (group)'] = groupRssMiB(measured.find(([n]) => n === 'api')?.[1].pid ?? 0);
      }
    }
    requests++;
    const sent = send(i);
    pending.add(sent);
    void sent.finally(() => pending.delete(sent));
    if (i > 0 && i % Math.round(options.rate * 30) === 0) {
      progress(`${i}/${total} sent, ${errors} errors, ${inFlight} in flight`);
    }
  }
  await Promise.all(pending);
  const seconds = (performance.now() - started) / 1000;
  await pool.close();

  progress('load done; waiting for the spool to drain');
  const drainStarted = performance.now();
  let spoolDrained = false;
  while (performance.now() - drainStarted < 120_000) {
    if ((await metric(stack.url, 'toolgate_gateway_spool_depth')) === 0) {
      spoolDrained = true;
      break;
    }
    await sleep(250);
  }
  const drainSeconds = (performance.now() - drainStarted) / 1000;
  const rss: Record<string, { start: number; end: number }> = {};
  for (const [name, process] of measured) {
    rss[name] = { start: rssStart[name] ?? 0, end: rssMiB(process.pid) };
  }
  const apiStarted = measured.find(([n]) => n === 'api')?.[1];
  if (apiStarted) {
    rss['api (group)'] = { start: rssStart['api (group)'] ?? 0, end: groupRssMiB(apiStarted.pid) };
  }

  progress('reading back the receipts');
  const operator = createClient({ baseUrl: stack.apiUrl, token: stack.operatorToken });
  const stored: string[] = [];
  let next: string | undefined;
  do {
    const page = await operator.call('receipts.list', {
      query: { gateway: 'bench-gateway', limit: 500, ...(next ? { continue: next } : {}) },
    });
    stored.push(...(page?.items ?? []).map((item) => item.id));
    next = page?.metadata.continue;
  } while (next);
  const verify = await operator.call('receipts.verify', { params: { name: 'bench-gateway' } });

  const failures: string[] = [];
  if (errors > 0) failures.push(`${errors} requests failed (first: ${firstError})`);
  if (ids.size !== requests) failures.push(`${requests - ids.size} requests without a receipt id`);
  if (!spoolDrained) failures.push('the spool did not drain within 120 s');
  const storedSet = new Set(stored);
  if (storedSet.size !== stored.length) failures.push('a receipt is stored twice');
  const missing = [...ids].filter((id) => !storedSet.has(id)).length;
  if (missing > 0 || stored.length !== requests) {
    failures.push(
      `receipts stored ${stored.length} ≠ requests made ${requests} (${missing} missing)`,
    );
  }
  if (!verify?.valid || verify.checked !== stored.length) {
    failures.push(`chain verification: ${JSON.stringify(verify)}`);
  }
  const achievedRate = requests / seconds;
  if (late > requests * 0.01) failures.push(`${late} requests left over a second late`);
  if (options.maxRssGrowth !== undefined) {
    for (const [name, { start, end }] of Object.entries(rss)) {
      if (start > 0 && end > start * options.maxRssGrowth + 64) {
        failures.push(`${name} RSS grew from ${start.toFixed(0)} to ${end.toFixed(0)} MiB`);
      }
    }
  }
  const lines = [
    `load        ${options.rate} req/s × ${totalSeconds} s (${options.warmupSeconds} s warm-up): ` +
      `${requests} requests in ${seconds.toFixed(1)} s = ${achievedRate.toFixed(1)} req/s, ` +
      `${errors} errors, ${late} late, max ${maxInFlight} in flight`,
    `receipts    ${requests} made, ${stored.length} stored, chain ${verify?.valid ? 'valid' : 'BROKEN'} ` +
      `(${verify?.checked} checked); spool ${spoolDrained ? `drained ${drainSeconds.toFixed(1)} s after the load` : 'NOT drained'}`,
    ...Object.entries(rss).map(
      ([name, { start, end }]) =>
        `RSS ${name.padEnd(12)} ${start.toFixed(0)} MiB after warm-up → ${end.toFixed(0)} MiB at the end`,
    ),
  ];
  return {
    passed: failures.length === 0,
    failures,
    requests,
    errors,
    ...(firstError ? { firstError } : {}),
    late,
    seconds,
    targetRate: options.rate,
    achievedRate,
    maxInFlight,
    spoolDrained,
    drainSeconds,
    receiptsStored: stored.length,
    chainValid: verify?.valid === true,
    rssMiB: rss,
    lines,
  };
}
