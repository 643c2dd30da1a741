import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { tracingFromEnv } from '@toolgate/telemetry';
import { type OtlpReceiver, startOtlpReceiver } from '@toolgate/telemetry/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayEnv } from '../env.ts';
import { startTestMcpServer, type TestMcpServer } from '../mcp/testing/test-mcp-server.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';
import { agentTraceparent } from '../testing/traced-gateway.ts';

/**
 * Tracing is off unless an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp is set: then the gateway
 * has no tracer (main.ts starts none), exports nothing, and adds no `traceparent` to what it
 * sends — nor passes on the agent's.
 */

const SERVICE = { name: 'toolgate-gateway', version: 'test' };
let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());

describe('the OTEL_* environment that leaves tracing off', () => {
  it.each<[string, Record<string, string>]>([
    ['none of it', {}],
    [
      'a service name, headers and a sampler, but no endpoint',
      {
        OTEL_SERVICE_NAME: 'edge',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20x',
        OTEL_TRACES_SAMPLER: 'always_on',
      },
    ],
    [
      'an endpoint, with the SDK disabled',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' },
    ],
    [
      'an endpoint, with the exporter none',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' },
    ],
  ])('%s: no tracing is started', async (_case, env) => {
    expect(await tracingFromEnv(parseGatewayEnv(env), SERVICE)).toBeUndefined();
  });
});

describe('a gateway with tracing off', () => {
  let upstream: TestMcpServer;
  let gw: TestGateway;

  beforeAll(async () => {
    // As main.ts does: the environment names the receiver, but disables the SDK.
    const env = parseGatewayEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SDK_DISABLED: 'true',
    });
    expect(await tracingFromEnv(env, SERVICE)).toBeUndefined();
    upstream = await startTestMcpServer();
    gw = await startTestGateway();
    await gw.applyPolicies(
      [],
      [],
      [{ name: 'github', url: upstream.url, headers: [], drift: 'warn', pins: {} }],
    );
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
  });

  it('adds no traceparent upstream and passes on none of the agent’s; exports nothing', async () => {
    const agent = agentTraceparent();
    const openai = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: 'sk-test-FAKE',
      maxRetries: 0,
      defaultHeaders: { traceparent: agent.header, tracestate: 'agent=1' },
    });
    await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    for await (const _chunk of stream) {
      // drained
    }
    const logged = (await (await fetch(`${gw.mock.url}/__mock/requests?limit=2`)).json()) as {
      requests: Array<{ headers: Record<string, string> }>;
    };
    expect(logged.requests).toHaveLength(2);
    for (const { headers } of logged.requests) {
      expect(headers.traceparent).toBeUndefined();
      expect(headers.tracestate).toBeUndefined();
    }

    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp/github`), {
        requestInit: { headers: { traceparent: agent.header } },
      }),
    );
    try {
      await client.callTool({
        name: 'search',
        arguments: { q: 'x' },
        _meta: { traceparent: agent.header },
      });
    } finally {
      await client.close();
    }
    const received = upstream.received.at(-1);
    expect(received?.meta?.traceparent).toBeUndefined();
    expect(received?.headers.traceparent).toBeUndefined();

    // Longer than a batch delay of a traced gateway: nothing has come, nothing will.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.exports).toEqual([]);
  });
});
