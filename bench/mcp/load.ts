import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Throughput } from '../gateway/load.ts';
import { ECHO_CALL } from './plan.ts';

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

/** An SDK client with an initialized session on one target. */
export interface Session {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

export async function openSession(target: McpTarget): Promise<Session> {
  const transport = new StreamableHTTPClientTransport(new URL(target.url), {
    requestInit: { headers: target.headers },
  });
  const client = new Client({ name: 'toolgate-bench', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`${target.name}: initialize failed: ${(error as Error).message}`);
  }
  return { client, transport };
}

export async function openSessions(target: McpTarget, count: number): Promise<Session[]> {
  const sessions: Session[] = [];
  for (let i = 0; i < count; i++) sessions.push(await openSession(target));
  return sessions;
}

/** Ends the sessions (DELETE, so no server keeps them) and closes the clients. */
export async function closeSessions(sessions: ReadonlyArray<Session>): Promise<void> {
  await Promise.all(
    sessions.map(async ({ client, transport }) => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }),
  );
}

/** One `tools/call` of echo, timed from the call to its checked result. */
export async function timedEcho(session: Session): Promise<number> {
  const started = performance.now();
  const result = await session.client.callTool(ECHO_CALL);
  const ms = performance.now() - started;
  const content = result.content as Array<{ type: string; text?: string }>;
  if (result.isError || content[0]?.text !== ECHO_CALL.arguments.text) {
    throw new Error(`unexpected echo result: ${JSON.stringify(result).slice(0, 300)}`);
  }
  return ms;
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
