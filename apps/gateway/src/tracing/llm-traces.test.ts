import { randomBytes } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import { type OtlpReceiver, SPAN_KIND, startOtlpReceiver } from '@toolgate/telemetry/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GEMINI_TEST_MODEL, say as geminiSay } from '../testing/gemini-agent.ts';
import {
  agentTraceparent,
  receivedTrace,
  settledTrace,
  startTracedGateway,
  type TracedGateway,
} from '../testing/traced-gateway.ts';

/**
 * Traces of agent requests with tracing on: the official SDKs through a gateway exporting to an
 * OTLP receiver this test runs (http/protobuf, decoded). The span tree, the gen_ai attributes,
 * tool calls as events with their decisions, the traceparent the provider gets, and not one
 * secret the test sent anywhere in what was exported.
 */

const random = (bytes: number) => randomBytes(bytes).toString('hex');
const AGENT_OPENAI_KEY = `sk-agent-${random(16)}`;
const GATEWAY_OPENAI_KEY = `sk-gateway-${random(16)}`;
const AGENT_ANTHROPIC_KEY = `sk-ant-agent-${random(16)}`;
const GEMINI_QUERY_KEY = `AIza${random(17)}q`;
const TOOLGATE_TOKEN = `tg_${randomBytes(32).toString('base64url').slice(0, 43)}`;
const SECRETS = [
  AGENT_OPENAI_KEY,
  GATEWAY_OPENAI_KEY,
  AGENT_ANTHROPIC_KEY,
  GEMINI_QUERY_KEY,
  TOOLGATE_TOKEN,
];

const fn = (name: string) => ({
  type: 'function' as const,
  function: { name, description: `${name} tool`, parameters: { type: 'object', properties: {} } },
});
const TOOLS = [
  fn('search_code'),
  fn('create_pull_request'),
  fn('github/create_issue'),
  fn('delete_repo'),
];
const say = (value: object) => `mock: ${JSON.stringify(value)}`;

let receiver: OtlpReceiver;
let gw: TracedGateway;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  gw = await startTracedGateway(receiver, { openaiApiKey: GATEWAY_OPENAI_KEY });
  await gw.applyPolicies([
    {
      name: 'guardrails',
      spec: {
        rules: [
          { id: 'hide-pr', action: 'hide', match: { name: 'create_pull_request' } },
          { id: 'gh', action: 'rename', match: { name: 'github/create_issue' }, alias: 'gh_issue' },
          {
            id: 'no-delete',
            action: 'deny',
            match: { name: 'delete_repo' },
            message: 'Deleting a repository needs a human.',
          },
        ],
      },
    },
  ]);
});
afterAll(async () => {
  await gw?.close();
  await receiver?.close();
});

/** What the mock provider logged of the last request (GET /__mock/requests). */
async function providerHeaders(): Promise<Record<string, string>> {
  const logged = (await (await fetch(`${gw.mock.url}/__mock/requests?limit=1`)).json()) as {
    requests: Array<{ headers: Record<string, string> }>;
  };
  return logged.requests[0]?.headers ?? {};
}

describe('an OpenAI Chat Completions request, traced', () => {
  it('is a span tree under the agent’s traceparent, with gen_ai attributes and the decisions', async () => {
    const agent = agentTraceparent();
    const openai = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: AGENT_OPENAI_KEY,
      maxRetries: 0,
      defaultHeaders: { traceparent: agent.header, 'x-toolgate-token': TOOLGATE_TOKEN },
    });
    const { data: completion, response } = await openai.chat.completions
      .create({
        model: 'gpt-4o-mini',
        max_tokens: 300,
        temperature: 0.5,
        messages: [
          {
            role: 'user',
            content: say({ calls: [{ name: 'gh_issue' }, { name: 'delete_repo' }] }),
          },
        ],
        tools: TOOLS,
      })
      .withResponse();
    expect(
      completion.choices[0]?.message.tool_calls?.map(
        (c) => c.type === 'function' && c.function.name,
      ),
    ).toEqual(['github/create_issue']);
    const seen = await providerHeaders();

    const { named, children } = await receivedTrace(
      receiver,
      agent.traceId,
      'chat gpt-4o-mini',
      'POST',
      'toolgate.mediate',
      'toolgate.receipt',
    );
    const root = named('chat gpt-4o-mini');
    expect(root.kind).toBe(SPAN_KIND.server);
    expect(root.parentSpanId).toBe(agent.spanId);
    expect(children(root)).toEqual(['POST', 'toolgate.mediate', 'toolgate.receipt']);
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'openai.api.type': 'chat_completions',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.request.stream': false,
      'gen_ai.request.max_tokens': 300,
      'gen_ai.request.temperature': 0.5,
      'gen_ai.response.id': completion.id,
      'gen_ai.response.model': completion.model,
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'gen_ai.usage.input_tokens': completion.usage?.prompt_tokens,
      'gen_ai.usage.output_tokens': completion.usage?.completion_tokens,
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'toolgate.gateway': 'test-gw',
      'toolgate.receipt.id': response.headers.get('x-toolgate-receipt-id'),
      'toolgate.identity.binding': 'unverified',
      'toolgate.tool_calls': 2,
      'toolgate.tool_calls.withheld': 1,
    });
    expect(root.resource['service.name']).toBe('toolgate-gateway');

    const calls = root.events
      .filter((e) => e.name === 'toolgate.tool_call')
      .map((e) => e.attributes);
    expect(calls).toEqual([
      expect.objectContaining({
        'gen_ai.tool.name': 'github/create_issue',
        'toolgate.tool.provider_name': 'gh_issue',
        'toolgate.policy_state': 'allowed',
      }),
      expect.objectContaining({
        'gen_ai.tool.name': 'delete_repo',
        'toolgate.policy_state': 'blocked',
        'toolgate.reason': 'rule:no-delete',
        'toolgate.decision.outcome': 'deny',
        'toolgate.decision.rule': 'no-delete',
        'toolgate.decision.policy': 'guardrails',
      }),
    ]);
    expect(calls[0]?.['gen_ai.tool.call.id']).toMatch(/^call_/);

    const mediation = named('toolgate.mediate');
    expect(mediation.kind).toBe(SPAN_KIND.internal);
    expect(mediation.attributes).toEqual({
      'toolgate.mediation.changed': true,
      'toolgate.mediation.mode': 'patch',
      'toolgate.tools': 4,
      'toolgate.tools.visible': 3,
      'toolgate.tools.hidden': ['create_pull_request'],
      'toolgate.policies': ['guardrails'],
      'toolgate.rules.applied': ['guardrails/hide-pr', 'guardrails/gh'],
    });

    const upstream = named('POST');
    expect(upstream.kind).toBe(SPAN_KIND.client);
    expect(upstream.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
      'url.full': `${gw.mock.url}/v1/chat/completions`,
    });
    // The provider continues the gateway's span, not the agent's.
    expect(seen.traceparent).toBe(`00-${agent.traceId}-${upstream.spanId}-01`);
    expect(upstream.startNs).toBeGreaterThanOrEqual(mediation.endNs);
  });
});

describe('an Anthropic Messages stream, traced', () => {
  it('reads the stream’s id, model, usage and stop reason as it is relayed', async () => {
    const agent = agentTraceparent();
    const anthropic = new Anthropic({
      baseURL: gw.url,
      apiKey: AGENT_ANTHROPIC_KEY,
      maxRetries: 0,
      defaultHeaders: { traceparent: agent.header },
    });
    const stream = anthropic.messages.stream({
      model: 'claude-haiku-4-5',
      max_tokens: 512,
      messages: [
        {
          role: 'user',
          content: say({ text: 'streamed words', calls: [{ name: 'delete_repo' }] }),
        },
      ],
      tools: [{ name: 'delete_repo', input_schema: { type: 'object' } }],
    });
    const message = await stream.finalMessage();
    expect(message.content.some((block) => block.type === 'tool_use')).toBe(false);

    const { named, children } = await receivedTrace(
      receiver,
      agent.traceId,
      'chat claude-haiku-4-5',
      'POST',
      'toolgate.mediate',
      'toolgate.receipt',
    );
    const root = named('chat claude-haiku-4-5');
    expect(children(root)).toEqual(['POST', 'toolgate.mediate', 'toolgate.receipt']);
    expect(root.attributes).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.stream': true,
      'gen_ai.request.max_tokens': 512,
      'gen_ai.response.id': message.id,
      'gen_ai.response.model': 'claude-haiku-4-5',
      'gen_ai.usage.input_tokens': message.usage.input_tokens,
      'gen_ai.usage.output_tokens': message.usage.output_tokens,
      'http.response.status_code': 200,
    });
    expect(root.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThan(0);
    expect(root.attributes['gen_ai.response.finish_reasons']).toEqual(['tool_use']);
    expect(root.events.map((e) => e.attributes['toolgate.decision.outcome'])).toEqual(['deny']);
    expect((await providerHeaders()).traceparent).toBe(
      `00-${agent.traceId}-${named('POST').spanId}-01`,
    );
  });
});

describe('a Gemini request, traced', () => {
  it('is a generate_content span whose path and URL hold no key', async () => {
    const agent = agentTraceparent();
    const path = `/v1beta/models/${GEMINI_TEST_MODEL}:generateContent`;
    const response = await fetch(`${gw.url}${path}?key=${GEMINI_QUERY_KEY}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: agent.header },
      body: JSON.stringify({
        contents: [{ role: 'user', parts: [{ text: geminiSay({ text: 'hi' }) }] }],
        generationConfig: { maxOutputTokens: 64, topK: 3 },
      }),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { responseId: string };
    const { named } = await receivedTrace(
      receiver,
      agent.traceId,
      `generate_content ${GEMINI_TEST_MODEL}`,
      'POST',
    );
    const root = named(`generate_content ${GEMINI_TEST_MODEL}`);
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'generate_content',
      'gen_ai.provider.name': 'gcp.gemini',
      'gen_ai.request.model': GEMINI_TEST_MODEL,
      'gen_ai.request.max_tokens': 64,
      'gen_ai.request.top_k': 3,
      'gen_ai.response.id': answer.responseId,
      'gen_ai.response.finish_reasons': ['STOP'],
      'http.route': '/{version}/models/{model}:{method}',
      'url.path': path,
    });
    expect(named('POST').attributes['url.full']).toBe(`${gw.mock.url}${path}`);
  });
});

describe('failures, traced', () => {
  it('a provider error: the status on both spans, error.type on the request’s', async () => {
    const agent = agentTraceparent();
    const openai = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: AGENT_OPENAI_KEY,
      maxRetries: 0,
      defaultHeaders: { traceparent: agent.header },
    });
    await expect(
      openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [
          {
            role: 'user',
            content: say({ error: { status: 503, message: `key ${AGENT_OPENAI_KEY} overloaded` } }),
          },
        ],
      }),
    ).rejects.toMatchObject({ status: 503 });
    const { named } = await receivedTrace(receiver, agent.traceId, 'chat gpt-4o-mini', 'POST');
    expect(named('chat gpt-4o-mini')).toMatchObject({
      attributes: expect.objectContaining({
        'http.response.status_code': 503,
        'error.type': '503',
      }),
      status: { code: 2 },
    });
    expect(named('POST').attributes).toMatchObject({
      'http.response.status_code': 503,
      'error.type': '503',
    });
  });

  it('a refusal before the provider: one span, the status, no provider call', async () => {
    const agent = agentTraceparent();
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: agent.header },
      body: '{"model": ',
    });
    expect(response.status).toBe(400);
    const { trace } = await settledTrace(gw, receiver, agent.traceId, 'chat');
    expect(trace.map((s) => s.name)).toEqual(['chat']);
    expect(trace[0]?.attributes['http.response.status_code']).toBe(400);
    expect(trace[0]?.status.code).toBe(0);
  });

  it('a provider that cannot be reached: the client span says how', async () => {
    const unreachable = await startTracedGateway(receiver, { upstreamUrl: 'http://127.0.0.1:9' });
    try {
      await unreachable.applyPolicies([]);
      const agent = agentTraceparent();
      const response = await fetch(`${unreachable.url}/v1/messages`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          traceparent: agent.header,
          'x-api-key': AGENT_ANTHROPIC_KEY,
        },
        body: JSON.stringify({
          model: 'claude-haiku',
          max_tokens: 10,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      });
      expect(response.status).toBe(502);
      const { named } = await receivedTrace(receiver, agent.traceId, 'POST', 'chat claude-haiku');
      expect(named('POST')).toMatchObject({
        attributes: expect.objectContaining({ 'error.type': 'ECONNREFUSED' }),
        status: { code: 2 },
      });
      expect(named('chat claude-haiku').attributes['error.type']).toBe('502');
    } finally {
      await unreachable.close();
    }
  });
});

describe('what was exported', () => {
  it('holds none of the secrets the agents and the gateway sent: keys, tokens, ?key=', async () => {
    await gw.tracing.flush();
    const everything = receiver.everything();
    // What the spans do carry is there, in the raw protobuf as in the decoded form.
    expect(everything).toContain('gen_ai.request.model');
    expect(everything).toContain('gpt-4o-mini');
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
    expect(everything).not.toMatch(
      /authorization|x-api-key|x-goog-api-key|x-toolgate-token|[?&]key=/i,
    );
  });
});
