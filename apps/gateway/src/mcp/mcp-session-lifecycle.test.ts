import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { BundleMcpServer, MediationPolicySpecInput } from '@toolgate/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';
import { startTestMcpServer, type TestMcpServer } from './testing/test-mcp-server.ts';

/**
 * What an agent session lives through, with the official SDK on both sides: the errors it is
 * sent (one "MCP error" prefix, the client's), a bundle changing its tool list under it, the
 * upstream restarting, and a drift-blocked tool called by its alias.
 */

const POLICY: MediationPolicySpecInput = {
  rules: [
    { id: 'no-delete', action: 'hide', match: { name: 'github/delete_repo' } },
    {
      id: 'bug-alias',
      action: 'rename',
      match: { name: 'github/create_issue' },
      alias: 'file_bug',
    },
  ],
};

let upstream: TestMcpServer;
let port: number;
let gateway: TestGateway;
const clients: Client[] = [];

function server(extra: Partial<BundleMcpServer> = {}): BundleMcpServer {
  return { name: 'github', url: upstream.url, headers: [], drift: 'warn', pins: {}, ...extra };
}

async function connect(): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp/github`)));
  clients.push(client);
  return client;
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  upstream = await startTestMcpServer();
  port = Number(new URL(upstream.url).port);
  gateway = await startTestGateway();
  await gateway.applyPolicies([{ name: 'mcp', spec: POLICY }], [], [server()]);
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await gateway.applyPolicies([{ name: 'mcp', spec: POLICY }], [], [server()]);
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

describe('an agent session on /mcp/<server>', () => {
  it('sends JSON-RPC errors without the SDK prefix, so the client shows it once (lean and SDK paths)', async () => {
    const client = await connect();
    // Lean path: the gateway's own refusal.
    const hidden = await client.callTool({ name: 'delete_repo', arguments: {} }).catch((e) => e);
    expect(hidden).toBeInstanceOf(McpError);
    expect((hidden as McpError).message).toBe(
      'MCP error -32602: Tool delete_repo is hidden by policy',
    );
    // SDK path: params the lean path does not take (no name) are the SDK Server's to refuse.
    const invalid = await client
      .request({ method: 'tools/call', params: { arguments: {} } as never }, CallToolResultSchema)
      .catch((e) => e);
    expect(invalid).toBeInstanceOf(McpError);
    expect((invalid as McpError).message.match(/MCP error/g)).toHaveLength(1);
  });

  it('tells the agent its tool list changed when a new bundle changes it, and lists by the new rules', async () => {
    const client = await connect();
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed++;
    });
    const before = await client.listTools();
    expect(before.tools.map((t) => t.name)).toContain('search');
    // A bundle that changes nothing this session is served: no notification.
    await gateway.applyPolicies(
      [
        { name: 'mcp', spec: POLICY },
        { name: 'other', spec: { rules: [] } },
      ],
      [],
      [server()],
    );
    const hideSearch: MediationPolicySpecInput = {
      rules: [
        ...POLICY.rules,
        { id: 'no-search', action: 'hide', match: { name: 'github/search' } },
      ],
    };
    await gateway.applyPolicies([{ name: 'mcp', spec: hideSearch }], [], [server()]);
    await until(() => changed > 0, 'notifications/tools/list_changed');
    expect(changed).toBe(1);
    const after = await client.listTools();
    expect(after.tools.map((t) => t.name)).not.toContain('search');
    // A pin that blocks a tool (drift: block) changes the list too.
    await gateway.applyPolicies(
      [{ name: 'mcp', spec: hideSearch }],
      [],
      [server({ drift: 'block', pins: { weather: `sha256:${'0'.repeat(64)}` } })],
    );
    await until(() => changed > 1, 'a second notifications/tools/list_changed');
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('weather');
  });

  it('opens a new upstream session when the upstream lost it (restarted), and retries the call once', async () => {
    const client = await connect();
    await client.listTools();
    expect((await client.callTool({ name: 'search', arguments: { q: 'a' } })).isError).toBeFalsy();
    await upstream.close();
    upstream = await startTestMcpServer({ port });
    // The restarted server knows no session: it answers 404, and the gateway renews its own.
    const result = await client.callTool({ name: 'search', arguments: { q: 'b' } });
    expect(result.content).toEqual([{ type: 'text', text: 'results for b' }]);
    expect(upstream.calls).toEqual([{ name: 'search', arguments: { q: 'b' } }]);
    expect(upstream.sessions()).toBe(1);
    // Every upstream request of the session goes to the new one (tools/list, pass-through).
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect((await client.readResource({ uri: 'test://readme' })).contents).toHaveLength(1);
    // Restarted again, with requests in flight at once: still one new session, each call once.
    await upstream.close();
    upstream = await startTestMcpServer({ port });
    const calls = await Promise.all(
      ['c', 'd', 'e'].map((q) => client.callTool({ name: 'search', arguments: { q } })),
    );
    expect(calls.map((c) => c.isError)).toEqual([undefined, undefined, undefined]);
    expect(upstream.calls.map((c) => c.arguments?.q).sort()).toEqual(['c', 'd', 'e']);
    expect(upstream.sessions()).toBe(1);
  });

  it('tells a call to a drift-blocked tool by its alias of the drift, not that it is unknown', async () => {
    await gateway.applyPolicies(
      [{ name: 'mcp', spec: POLICY }],
      [],
      [server({ drift: 'block', pins: { create_issue: `sha256:${'0'.repeat(64)}` } })],
    );
    const client = await connect();
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('file_bug');
    const before = upstream.calls.length;
    const refused = await client
      .callTool({ name: 'file_bug', arguments: { title: 'x' } })
      .catch((e) => e);
    expect((refused as McpError).message).toMatch(
      /Tool file_bug is blocked: its definition changed/,
    );
    // The upstream name of a renamed tool stays uncallable, drifted or not.
    const original = await client.callTool({ name: 'create_issue', arguments: {} }).catch((e) => e);
    expect((original as McpError).message).toMatch(/Unknown tool: create_issue/);
    expect(upstream.calls.length).toBe(before);
  });
});
