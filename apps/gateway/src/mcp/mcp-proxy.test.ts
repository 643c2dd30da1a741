import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { BundleMcpServer, MediationPolicySpecInput, Receipt } from '@toolgate/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';
import { startTestMcpServer, type TestMcpServer } from './testing/test-mcp-server.ts';

/**
 * The MCP proxy with the official SDK on both sides: an SDK Client → the gateway's
 * /mcp/github → an SDK server. Tool-list mediation, name mapping, refusals, pass-through,
 * progress, errors and receipts.
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
    {
      id: 'search-note',
      action: 'augment',
      match: { name: 'github/search', declared_by: 'mcp' },
      description_append: 'Never search for secrets.',
    },
    {
      id: 'no-prod',
      action: 'deny',
      match: { name: 'github/create_issue' },
      when: "has(args.repo) && args.repo == 'acme/prod'",
      message: 'Issues in acme/prod are filed by humans.',
    },
  ],
};

let upstream: TestMcpServer;
let gateway: TestGateway;
const clients: Client[] = [];

function server(extra: Partial<BundleMcpServer> = {}): BundleMcpServer {
  return { name: 'github', url: upstream.url, headers: [], drift: 'warn', pins: {}, ...extra };
}

async function connect(path = '/mcp/github'): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`)));
  clients.push(client);
  return client;
}

async function receipts(): Promise<Receipt[]> {
  return (await servedReceipts(gateway.spool)).filter((r) => r.surface === 'mcp');
}

beforeAll(async () => {
  upstream = await startTestMcpServer({ pageSize: 2 });
  gateway = await startTestGateway();
  await gateway.applyPolicies([{ name: 'mcp', spec: POLICY }], [], [server()]);
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

describe('the gateway as an MCP proxy', () => {
  it('serves every page of the list, mediated: hidden, renamed, augmented', async () => {
    const client = await connect();
    const { tools, nextCursor } = await client.listTools();
    expect(nextCursor).toBeUndefined();
    expect(tools.map((t) => t.name)).toEqual(['file_bug', 'search', 'weather', 'count', 'fail']);
    expect(tools.find((t) => t.name === 'search')?.description).toBe(
      'Search code\n\nNever search for secrets.',
    );
    const [listed] = (await receipts()).filter((r) => r.mcp?.method === 'tools/list');
    expect(listed?.model).toBe('mcp/github');
    expect(listed?.wardwright_tool_mediation?.applied_rules.map((r) => r.id)).toEqual([
      'no-delete',
      'bug-alias',
      'search-note',
    ]);
    expect(listed?.tools.find((t) => t.name === 'github/delete_repo')?.policy_state).toBe('hidden');
  });

  it('maps a renamed tool back, passes the result through, and receipts the call', async () => {
    const client = await connect();
    await client.listTools();
    const result = await client.callTool({ name: 'file_bug', arguments: { title: 'typo' } });
    expect(result.content).toEqual([{ type: 'text', text: 'created issue "typo"' }]);
    expect(upstream.calls.at(-1)).toEqual({ name: 'create_issue', arguments: { title: 'typo' } });
    const call = (await receipts()).filter((r) => r.mcp?.method === 'tools/call').at(-1);
    expect(call?.outcome.status).toBe(200);
    expect(call?.response?.tool_calls[0]).toMatchObject({
      name: 'file_bug',
      resolved_tool: 'github/create_issue',
      policy_state: 'allowed',
    });
    expect(call?.tool_results?.[0]).toMatchObject({ is_error: false });
    expect(call?.tool_results?.[0]?.action_id).toBe(call?.response?.tool_calls[0]?.action_id);
  });

  it('refuses hidden and unknown tools with -32602 and a receipt', async () => {
    const client = await connect();
    const before = upstream.calls.length;
    await expect(client.callTool({ name: 'delete_repo', arguments: {} })).rejects.toThrow(
      /-32602.*delete_repo/,
    );
    // The original name of a renamed tool is no more callable than an unknown one.
    await expect(client.callTool({ name: 'create_issue', arguments: {} })).rejects.toThrow(
      /-32602.*create_issue/,
    );
    expect(upstream.calls.length).toBe(before);
    const refused = (await receipts()).filter((r) => r.mcp?.error?.code === -32602);
    expect(refused.map((r) => r.outcome.status)).toEqual(expect.arrayContaining([400]));
  });

  it('answers a call-time deny on the arguments with an isError result and a 403 receipt', async () => {
    const client = await connect();
    const before = upstream.calls.length;
    const result = await client.callTool({
      name: 'file_bug',
      arguments: { title: 'x', repo: 'acme/prod' },
    });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: 'text', text: 'Issues in acme/prod are filed by humans.' },
    ]);
    expect(upstream.calls.length).toBe(before);
    const denied = (await receipts()).filter((r) => r.outcome.status === 403).at(-1);
    expect(denied?.response?.tool_calls[0]?.decision).toMatchObject({
      outcome: 'deny',
      rule: 'no-prod',
    });
  });

  it('streams progress through and passes tool errors through as results', async () => {
    const client = await connect();
    const progress: number[] = [];
    const counted = await client.callTool({ name: 'count', arguments: { n: 3 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(counted.content).toEqual([{ type: 'text', text: 'counted to 3' }]);
    expect(progress).toEqual([1, 2, 3]);
    const failed = await client.callTool({ name: 'fail', arguments: {} });
    expect(failed.isError).toBe(true);
    const last = (await receipts()).at(-1);
    expect(last?.outcome.status).toBe(200);
    expect(last?.tool_results?.[0]?.is_error).toBe(true);
  });

  it('passes resources and prompts through, receipted', async () => {
    const client = await connect();
    const read = await client.readResource({ uri: 'test://readme' });
    expect(read.contents[0]).toMatchObject({ text: 'read me' });
    const prompt = await client.getPrompt({ name: 'greet' });
    expect(prompt.messages).toHaveLength(1);
    const methods = (await receipts()).map((r) => r.mcp?.method);
    expect(methods).toEqual(expect.arrayContaining(['resources/read', 'prompts/get']));
  });

  it('answers an unknown server with 404 and bad JSON-RPC with a JSON-RPC error', async () => {
    const missing = await fetch(`${gateway.url}/mcp/gitlab`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(missing.status).toBe(404);
    for (const body of ['{not json', '[1,2', '"x"', '{"jsonrpc":"2.0","method":5,"id":1}']) {
      const bad = await fetch(`${gateway.url}/mcp/github`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body,
      });
      expect(bad.status).toBeGreaterThanOrEqual(400);
      expect(bad.status).toBeLessThan(500);
      const answer = (await bad.json()) as { error?: { code: number } };
      expect(answer.error?.code).toBeLessThan(0);
    }
    // Still serving.
    const client = await connect();
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('judges each call of a session by the bundle in force now, not the one it was opened under', async () => {
    // The mediated list is cached per (bundle, upstream list, identity): a new bundle must miss.
    const client = await connect();
    const first = await client.callTool({ name: 'search', arguments: { q: 'a' } });
    expect(first.isError).not.toBe(true);
    await gateway.applyPolicies(
      [
        {
          name: 'mcp',
          spec: {
            rules: [
              ...POLICY.rules,
              { id: 'no-search', action: 'deny', match: { name: 'github/search' } },
            ],
          },
        },
      ],
      [],
      [server()],
    );
    try {
      const second = await client.callTool({ name: 'search', arguments: { q: 'b' } });
      expect(second.isError).toBe(true);
      const denied = (await receipts()).filter((r) => r.outcome.status === 403).at(-1);
      expect(denied?.response?.tool_calls[0]?.decision).toMatchObject({ rule: 'no-search' });
    } finally {
      await gateway.applyPolicies([{ name: 'mcp', spec: POLICY }], [], [server()]);
    }
    const third = await client.callTool({ name: 'search', arguments: { q: 'c' } });
    expect(third.isError).not.toBe(true);
  });

  it('drift: warn serves a changed tool and says so in the tools/list receipt', async () => {
    const pinned = `sha256:${'0'.repeat(64)}`;
    await gateway.applyPolicies(
      [{ name: 'mcp', spec: POLICY }],
      [],
      [server({ pins: { weather: pinned } })],
    );
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('weather');
    const listed = (await receipts()).filter((r) => r.mcp?.method === 'tools/list').at(-1);
    expect(listed?.mcp?.drifted).toEqual([
      { tool: 'weather', pinned, seen: expect.stringMatching(/^sha256:/), action: 'warned' },
    ]);
    await gateway.applyPolicies([{ name: 'mcp', spec: POLICY }], [], [server()]);
  });

  it.each([
    ['U+0000', 'a\u0000b', /tools\[3\]\.description: must not contain U\+0000/],
    ['a lone surrogate', 'a\ud800b', /tools\[3\]\.description: holds a lone UTF-16 surrogate/],
  ])(
    'refuses a listed definition holding %s, which no receipt or store could hold',
    async (_, description, names) => {
      const original = upstream.tools().find((t) => t.name === 'weather')?.description ?? '';
      await upstream.setDefinition('weather', { description });
      try {
        const client = await connect();
        await expect(client.listTools()).rejects.toThrow(names);
      } finally {
        await upstream.setDefinition('weather', { description: original });
      }
    },
  );

  it('refuses to open a session whose header secret is not in the environment, naming the variable', async () => {
    await gateway.applyPolicies(
      [{ name: 'mcp', spec: POLICY }],
      [],
      [server({ headers: [{ name: 'authorization', secretRef: { env: 'NOT_SET_MCP_TOKEN' } }] })],
    );
    await expect(connect()).rejects.toThrow(/NOT_SET_MCP_TOKEN/);
    await gateway.applyPolicies([{ name: 'mcp', spec: POLICY }], [], [server()]);
  });
});
