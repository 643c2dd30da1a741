import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Throughput } from '../gateway/load.ts';
import { ECHO_CALL } from './plan.ts';
import { WireSession } from './wire-client.ts';

/** One way to reach the demo MCP server: directly, or through a proxy. */
export interface McpTarget {
  name: string;
  /** The Streamable HTTP endpoint the client connects to. */
  url: string;
  /** Request headers of every message (Toolgate: the agent's token). */
  headers: Record<string, string>;
  /** The process group(s) serving it, for CPU accounting. */
  pgids: number[];
  /** Runs after each of its throughput blocks (Toolgate: let the spool drain). */
  afterBlock?: () => Promise<string | undefined>;
}

/** An initialized MCP session on one target that makes the bench's echo call. */
export interface Session {
  /** One `tools/call` of echo; throws unless the echo comes back without an error. */
  callEcho(): Promise<void>;
  /** Ends the session on the server (`DELETE`) and releases the client. */
  close(): Promise<void>;
}

/**
 * Which client makes the timed calls: the bench's lean wire client (default, wire-client.ts: the
 * load generator should take as little of the machine as it can) or `BENCH_MCP_CLIENT=sdk`,
 * the SDK's `Client` (~550 µs of CPU per call).
 */
export const LOAD_CLIENT: 'wire' | 'sdk' = process.env.BENCH_MCP_CLIENT === 'sdk' ? 'sdk' : 'wire';

export async function openSession(target: McpTarget): Promise<Session> {
  return (await openSessions(target, 1))[0] as Session;
}

export async function openSessions(target: McpTarget, count: number): Promise<Session[]> {
  try {
    if (LOAD_CLIENT === 'wire') return await WireSession.openMany(target, count);
    const sessions: Session[] = [];
    for (let i = 0; i < count; i++) sessions.push(await openSdkSession(target));
    return sessions;
  } catch (error) {
    throw new Error(`${target.name}: initialize failed: ${(error as Error).message}`);
  }
}

/**
 * A session of the official SDK `Client`: every target is checked with one before anything is
 * timed (bench/mcp.ts), and it makes the timed calls under `BENCH_MCP_CLIENT=sdk`.
 */
export async function openSdkSession(target: McpTarget): Promise<Session> {
  const transport = new StreamableHTTPClientTransport(new URL(target.url), {
    requestInit: { headers: target.headers },
    fetch: fetchWithoutSessionSignal,
  });
  const client = new Client({ name: 'toolgate-bench', version: '1.0.0' });
  await client.connect(transport);
  return {
    async callEcho() {
      const result = await client.callTool(ECHO_CALL);
      const content = result.content as Array<{ type: string; text?: string }>;
      if (result.isError || content[0]?.text !== ECHO_CALL.arguments.text) {
        throw new Error(`unexpected echo result: ${JSON.stringify(result).slice(0, 300)}`);
      }
    },
    async close() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

/**
 * The SDK client transport hands every POST its session's one `AbortSignal`, and fetch leaves a
 * listener on it per request: after ~1500 calls a session warns (MaxListenersExceeded) and each
 * new listener costs a scan of the others, so an SDK load generator slows as a run goes on,
 * taking CPU from the servers it measures. POSTs go without it (the bench never aborts a call;
 * an answer's body is read to its end); the standalone GET stream keeps it, so `close()` still
 * ends that stream.
 */
const fetchWithoutSessionSignal: typeof fetch = (input, init) => {
  if (init?.method !== 'POST' || init.signal === undefined) return fetch(input, init);
  const { signal: _signal, ...rest } = init;
  return fetch(input, rest);
};

/** Ends the sessions (DELETE, so no server keeps them) and closes the clients. */
export async function closeSessions(sessions: ReadonlyArray<Session>): Promise<void> {
  await Promise.all(sessions.map((session) => session.close().catch(() => {})));
}

/** One `tools/call` of echo, timed from the call to its checked result. */
export async function timedEcho(session: Session): Promise<number> {
  const started = performance.now();
  await session.callEcho();
  return performance.now() - started;
}

/**
 * Concurrency 1, interleaved: each iteration makes one call on every target in a rotating
 * order, so slow drifts of the machine hit all alike. One session per target.
 */
export async function interleavedEcho(
  targets: ReadonlyArray<McpTarget>,
  sessions: ReadonlyArray<Session>,
  iterations: number,
): Promise<Map<string, number[]>> {
  const samples = new Map(targets.map((target) => [target.name, [] as number[]]));
  for (let i = 0; i < iterations; i++) {
    for (let k = 0; k < targets.length; k++) {
      const index = (i + k) % targets.length;
      const target = targets[index] as McpTarget;
      const ms = await timedEcho(sessions[index] as Session).catch((error: Error) => {
        throw new Error(`${target.name}: ${error.message}`);
      });
      samples.get(target.name)?.push(ms);
    }
  }
  return samples;
}

/**
 * Concurrency 1, in blocks: `iterations` calls in a row on each target (the order rotated by
 * `round`), so each target's processes stay hot, as an agent making calls back to back keeps
 * them; the interleaved phase is the cold case (every process idle between its calls).
 */
export async function blockEcho(
  targets: ReadonlyArray<McpTarget>,
  sessions: ReadonlyArray<Session>,
  iterations: number,
  round: number,
): Promise<Map<string, number[]>> {
  const samples = new Map(targets.map((target) => [target.name, [] as number[]]));
  for (let k = 0; k < targets.length; k++) {
    const index = (round + k) % targets.length;
    const target = targets[index] as McpTarget;
    const values = samples.get(target.name) as number[];
    for (let i = 0; i < iterations; i++) {
      values.push(
        await timedEcho(sessions[index] as Session).catch((error: Error) => {
          throw new Error(`${target.name}: ${error.message}`);
        }),
      );
    }
  }
  return samples;
}

/**
 * Closed loop: one worker per session, each making the next call as soon as the last one is
 * answered, for `durationMs`; calls/s counts the checked results over the whole elapsed time.
 */
export async function closedLoop(
  sessions: ReadonlyArray<Session>,
  durationMs: number,
): Promise<Throughput> {
  const started = performance.now();
  const deadline = started + durationMs;
  let requests = 0;
  let errors = 0;
  let firstError: string | undefined;
  const worker = async (session: Session) => {
    while (performance.now() < deadline) {
      try {
        await timedEcho(session);
        requests++;
      } catch (error) {
        errors++;
        firstError ??= (error as Error).message;
      }
    }
  };
  await Promise.all(sessions.map(worker));
  const seconds = (performance.now() - started) / 1000;
  return {
    requests,
    errors,
    seconds,
    perSecond: requests / seconds,
    ...(firstError ? { firstError } : {}),
  };
}
