import { Client, type Dispatcher, Pool } from 'undici';

/** One way to reach the mock: directly, or through a proxy. */
export interface Target {
  name: string;
  origin: string;
  /** Request headers beyond content-type (keys, Portkey's routing headers). */
  headers: Record<string, string>;
  /** The endpoint, when not Chat Completions (`/v1/responses`). */
  path?: string;
  /** The request this target always gets, in place of the phase's (another surface's). */
  body?: string;
}

export const CHAT_PATH = '/v1/chat/completions';

export interface Sample {
  status: number;
  ms: number;
}

/** One POST, timed from sending to the last byte of the answer. */
export async function post(
  dispatcher: Dispatcher,
  target: Target,
  body: string,
): Promise<Sample & { text: string }> {
  const started = performance.now();
  const response = await dispatcher.request({
    method: 'POST',
    path: target.path ?? CHAT_PATH,
    headers: { 'content-type': 'application/json', ...target.headers },
    body: target.body ?? body,
  });
  const text = await response.body.text();
  return { status: response.statusCode, ms: performance.now() - started, text };
}

/**
 * Concurrency 1, interleaved: each iteration sends one request to every target in a rotating
 * order, so slow drifts of the machine (the other core busy, frequency changes) hit all alike.
 * One keep-alive connection per target.
 */
export async function interleavedLatency(
  targets: ReadonlyArray<Target>,
  body: string,
  iterations: number,
): Promise<Map<string, number[]>> {
  const clients = targets.map((target) => new Client(target.origin, { keepAliveTimeout: 30_000 }));
  const samples = new Map(targets.map((target) => [target.name, [] as number[]]));
  try {
    for (let i = 0; i < iterations; i++) {
      for (let k = 0; k < targets.length; k++) {
        const index = (i + k) % targets.length;
        const target = targets[index] as Target;
        const sample = await post(clients[index] as Client, target, body);
        if (sample.status !== 200) {
          throw new Error(`${target.name}: HTTP ${sample.status} ${sample.text.slice(0, 300)}`);
        }
        samples.get(target.name)?.push(sample.ms);
      }
    }
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
  return samples;
}

export interface Throughput {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  firstError?: string;
}

/**
 * Closed loop: `concurrency` workers each send the next request as soon as the last one is
 * answered, for `durationMs`; requests/s counts the 200s over the whole elapsed time.
 */
export async function closedLoop(
  pool: Pool,
  target: Target,
  body: string,
  concurrency: number,
  durationMs: number,
): Promise<Throughput> {
  const started = performance.now();
  const deadline = started + durationMs;
  let requests = 0;
  let errors = 0;
  let firstError: string | undefined;
  const worker = async () => {
    while (performance.now() < deadline) {
      try {
        const sample = await post(pool, target, body);
        if (sample.status === 200) requests++;
        else {
          errors++;
          firstError ??= `HTTP ${sample.status} ${sample.text.slice(0, 200)}`;
        }
      } catch (error) {
        errors++;
        firstError ??= (error as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return {
    requests,
    errors,
    seconds,
    perSecond: requests / seconds,
    ...(firstError ? { firstError } : {}),
  };
}

export function loadPool(target: Target, connections: number): Pool {
  return new Pool(target.origin, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
}

/**
 * Time to first token of a streamed answer: from sending to the first SSE chunk whose
 * `choices[0].delta.content` is non-empty; the rest of the stream is read to the end.
 */
export async function timeToFirstToken(
  client: Dispatcher,
  target: Target,
  body: string,
): Promise<number> {
  const started = performance.now();
  const response = await client.request({
    method: 'POST',
    path: CHAT_PATH,
    headers: { 'content-type': 'application/json', ...target.headers },
    body,
  });
  if (response.statusCode !== 200) {
    const text = await response.body.text();
    throw new Error(`HTTP ${response.statusCode} ${text.slice(0, 300)}`);
  }
  let firstToken: number | undefined;
  let pending = '';
  response.body.setEncoding('utf8');
  for await (const chunk of response.body as AsyncIterable<string>) {
    if (firstToken !== undefined) continue;
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('data: {')) continue;
      const event = JSON.parse(line.slice(6)) as {
        choices?: Array<{ delta?: { content?: unknown } }>;
      };
      const content = event.choices?.[0]?.delta?.content;
      if (typeof content === 'string' && content.length > 0) {
        firstToken = performance.now() - started;
        break;
      }
    }
  }
  if (firstToken === undefined) throw new Error('the stream ended without a content delta');
  return firstToken;
}

/** Nearest-rank percentile (q in 0..1) of unsorted values. */
export function percentile(values: ReadonlyArray<number>, q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  ] as number;
}
