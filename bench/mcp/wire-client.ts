import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { Pool } from 'undici';
import type { McpTarget } from './load.ts';
import { ECHO_CALL } from './plan.ts';

/**
 * The bench's load generator: an MCP Streamable HTTP client of its own, as lean as the wire
 * allows, so that on this 2-core machine the clients take as little CPU as they can from the
 * servers they measure. The SDK's `Client` (zod on every message, fetch, an SSE parser, an abort
 * listener per request) costs ~550 µs of CPU per call, more than the demo server and more than
 * Toolgate; like wrk or autocannon for HTTP, a load generator should not be the bottleneck.
 * It speaks the same protocol every target must honour: `initialize` (the session id comes back
 * in `Mcp-Session-Id`), `notifications/initialized`, then `tools/call` with the session and
 * protocol-version headers, answers as JSON or as an SSE stream, `DELETE` at the end. Every
 * answer is checked (the echo's text, no error). `BENCH_MCP_CLIENT=sdk` runs the SDK clients
 * instead, and every target is first checked with one (bench/mcp.ts).
 */
export class WireSession {
  private nextId = 1;

  private constructor(
    private readonly shared: SharedPool,
    private readonly path: string,
    private readonly headers: Record<string, string>,
  ) {}

  private get pool(): Pool {
    return this.shared.pool;
  }

  /** `count` sessions on `target`, sharing one pool of `count` connections. */
  static async openMany(target: McpTarget, count: number): Promise<WireSession[]> {
    const shared: SharedPool = {
      pool: new Pool(new URL(target.url).origin, { connections: count, pipelining: 1 }),
      open: 0,
    };
    const sessions: WireSession[] = [];
    try {
      for (let i = 0; i < count; i++) sessions.push(await WireSession.open(target, shared));
    } catch (error) {
      await Promise.all(sessions.map((session) => session.close()));
      if (shared.open === 0) await shared.pool.close();
      throw error;
    }
    return sessions;
  }

  private static async open(target: McpTarget, shared: SharedPool): Promise<WireSession> {
    const { pool } = shared;
    const url = new URL(target.url);
    const base = {
      ...target.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const init = await post(pool, url.pathname, base, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'toolgate-bench', version: '1.0.0' },
      },
    });
    const sessionId = init.headers['mcp-session-id'];
    const version = (answerTo(0, init) as { protocolVersion?: unknown }).protocolVersion;
    if (typeof sessionId !== 'string' || typeof version !== 'string') {
      throw new Error(`initialize: no session id or protocol version (HTTP ${init.status})`);
    }
    const headers = { ...base, 'mcp-session-id': sessionId, 'mcp-protocol-version': version };
    const ready = await post(pool, url.pathname, headers, {
      jsonrpc: '2.0',
      method: 'notifications/initialized',
    });
    if (ready.status !== 202) throw new Error(`notifications/initialized: HTTP ${ready.status}`);
    shared.open++;
    return new WireSession(shared, url.pathname, headers);
  }

  /** One `tools/call` of echo; throws unless the echo's text comes back without an error. */
  async callEcho(): Promise<void> {
    const id = this.nextId++;
    const answer = await post(this.pool, this.path, this.headers, {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: ECHO_CALL,
    });
    const result = answerTo(id, answer) as {
      isError?: boolean;
      content?: Array<{ text?: unknown }>;
    };
    if (result.isError || result.content?.[0]?.text !== ECHO_CALL.arguments.text) {
      throw new Error(`unexpected echo result: ${JSON.stringify(result).slice(0, 300)}`);
    }
  }

  /**
   * Ends the session (`DELETE`, as the SDK's `terminateSession` does; any answer is fine); the
   * last session of a pool closes it.
   */
  async close(): Promise<void> {
    try {
      const { body } = await this.pool.request({
        path: this.path,
        method: 'DELETE',
        headers: this.headers,
      });
      await body.dump();
    } finally {
      if (--this.shared.open === 0) await this.pool.close();
    }
  }
}

interface SharedPool {
  pool: Pool;
  /** Sessions still open on it. */
  open: number;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType: string;
  text: string;
}

async function post(
  pool: Pool,
  path: string,
  headers: Record<string, string>,
  message: unknown,
): Promise<Answer> {
  const response = await pool.request({
    path,
    method: 'POST',
    headers,
    body: JSON.stringify(message),
  });
  const text = await response.body.text();
  const contentType = String(response.headers['content-type'] ?? '');
  return { status: response.statusCode, headers: response.headers, contentType, text };
}

/** The `result` of the JSON-RPC response with `id` in a JSON or SSE answer; throws otherwise. */
function answerTo(id: number, answer: Answer): unknown {
  if (answer.status !== 200) {
    throw new Error(`HTTP ${answer.status}: ${answer.text.slice(0, 300)}`);
  }
  const messages = answer.contentType.startsWith('text/event-stream')
    ? answer.text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => JSON.parse(line.slice(5)))
    : [JSON.parse(answer.text)];
  const response = messages.find((m: { id?: unknown }) => m.id === id) as
    | { result?: unknown; error?: { message?: string } }
    | undefined;
  if (response?.result === undefined) {
    throw new Error(
      `no result for request ${id}: ${response?.error?.message ?? answer.text.slice(0, 300)}`,
    );
  }
  return response.result;
}
