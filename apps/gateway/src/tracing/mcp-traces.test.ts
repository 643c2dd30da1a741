import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { MediationPolicySpecInput } from '@toolgate/core';
import { type OtlpReceiver, SPAN_KIND, startOtlpReceiver } from '@toolgate/telemetry/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestMcpServer, type TestMcpServer } from '../mcp/testing/test-mcp-server.ts';
import {
  agentTraceparent,
  receivedTrace,
  settledTrace,
  startTracedGateway,
  type TracedGateway,
} from '../testing/traced-gateway.ts';

/**
 * MCP `tools/call` on `/mcp/<server>` traced: the official SDK client → the gateway → an SDK
 * server. The MCP conventions' spans, the decision as an event, and the trace context reaching
 * the upstream server in `params._meta` and as the HTTP `traceparent`; no upstream secret.
 */

const UPSTREAM_SECRET = `mcp-upstream-${randomBytes(12).toString('hex')}`;
const POLICY: MediationPolicySpecInput = {
  rules: [
    {
      id: 'bug-alias',
      action: 'rename',
      match: { name: 'github/create_issue' },
      alias: 'file_bug',
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

let receiver: OtlpReceiver;
let upstream: TestMcpServer;
let gw: TracedGateway;
const clients: Client[] = [];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  upstream = await startTestMcpServer();
  gw = await startTracedGateway(receiver, { mcp: { secrets: { GITHUB_TOKEN: UPSTREAM_SECRET } } });
  await gw.applyPolicies(
    [{ name: 'mcp', spec: POLICY }],
    [],
    [
      {
        name: 'github',
        url: upstream.url,
        headers: [{ name: 'authorization', secretRef: { env: 'GITHUB_TOKEN' } }],
        drift: 'warn',
        pins: {},
      },
    ],
  );
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
  await receiver?.close();
});

async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp/github`), {
      requestInit: { headers },
    }),
  );
  clients.push(client);
  return client;
}

describe('an MCP tools/call, traced', () => {
  it('continues the agent’s context from params._meta, and hands the upstream its own', async () => {
    const client = await connect();
    const agent = agentTraceparent();
    const result = await client.callTool({
      name: 'file_bug',
      arguments: { title: 'typo' },
      _meta: { traceparent: agent.header },
    });
    expect(result.isError).toBeFalsy();

    const { named, children } = await receivedTrace(
      receiver,
      agent.traceId,
      'tools/call file_bug',
      'toolgate.mediate',
      'tools/call create_issue',
    );
    const server = named('tools/call file_bug');
    expect(server.kind).toBe(SPAN_KIND.server);
    expect(server.parentSpanId).toBe(agent.spanId);
    expect(children(server)).toEqual(['toolgate.mediate', 'tools/call create_issue']);
    expect(server.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'file_bug',
      'toolgate.mcp.server': 'github',
      'toolgate.surface': 'mcp',
      'toolgate.outcome': 'ok',
    });
    expect(server.attributes['mcp.session.id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
    expect(server.events).toEqual([
      {
        name: 'toolgate.tool_call',
        attributes: expect.objectContaining({
          'gen_ai.tool.name': 'file_bug',
          'toolgate.tool.resolved': 'github/create_issue',
          'toolgate.policy_state': 'allowed',
        }),
      },
    ]);
    const upstreamCall = named('tools/call create_issue');
    expect(upstreamCall.kind).toBe(SPAN_KIND.client);
    expect(upstreamCall.attributes).toMatchObject({
      'gen_ai.tool.name': 'create_issue',
      'server.address': '127.0.0.1',
    });
    const traceparent = `00-${agent.traceId}-${upstreamCall.spanId}-01`;
    expect(upstream.received.at(-1)?.meta?.traceparent).toBe(traceparent);
    expect(upstream.received.at(-1)?.headers.traceparent).toBe(traceparent);
  });

  it('a withheld call: its decision on the server span, no upstream span, nothing upstream', async () => {
    const client = await connect();
    const agent = agentTraceparent();
    const before = upstream.calls.length;
    const result = await client.callTool({
      name: 'file_bug',
      arguments: { title: 'x', repo: 'acme/prod' },
      _meta: { traceparent: agent.header },
    });
    expect(result.isError).toBe(true);
    expect(upstream.calls.length).toBe(before);
    const { named, children, trace } = await settledTrace(
      gw,
      receiver,
      agent.traceId,
      'tools/call file_bug',
      'toolgate.mediate',
    );
    const server = named('tools/call file_bug');
    expect(children(server)).toEqual(['toolgate.mediate']);
    expect(trace).toHaveLength(2);
    expect(server.attributes).toMatchObject({
      'toolgate.outcome': 'withheld',
      'error.type': 'tool_error',
    });
    expect(server.events[0]?.attributes).toMatchObject({
      'toolgate.policy_state': 'blocked',
      'toolgate.decision.outcome': 'deny',
      'toolgate.decision.rule': 'no-prod',
      'toolgate.decision.policy': 'mcp',
    });
  });

  it('takes the HTTP traceparent when params._meta has none; a refused call is a JSON-RPC error', async () => {
    const agent = agentTraceparent();
    const client = await connect({ traceparent: agent.header });
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    );
    const { named } = await receivedTrace(receiver, agent.traceId, 'tools/call no_such_tool');
    const server = named('tools/call no_such_tool');
    expect(server.parentSpanId).toBe(agent.spanId);
    expect(server).toMatchObject({
      attributes: expect.objectContaining({
        'toolgate.outcome': 'refused',
        'error.type': '-32602',
        'rpc.response.status_code': '-32602',
      }),
      status: { code: 2 },
    });
  });

  it('exports no secret: not the upstream’s header secret, nor any header', async () => {
    await gw.tracing.flush();
    const everything = receiver.everything();
    expect(everything).toContain('tools/call');
    expect(everything).not.toContain(UPSTREAM_SECRET);
    expect(everything).not.toMatch(/authorization/i);
  });
});
