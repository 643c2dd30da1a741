import Anthropic from '@anthropic-ai/sdk';
import type { Receipt } from '@toolgate/core';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  HOST_POLICY,
  type HostedEndpoint,
  SEARCH_SCRIPT,
  say,
  searchTool,
  startHostedEndpoint,
} from '../testing/hosted-fixtures.ts';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';
import { httpExecutorRegistry } from './http-executors.ts';

/**
 * HostedTools in the tool loop: a real HTTP endpoint behind a `host` rule, reached through the
 * executor registry the gateway is given (the gateway's own: HTTP executors, as in main.ts). The endpoint up,
 * down, slow and answering garbage: the model is told the outcome as the call's result, the
 * receipt records it, and nothing hangs.
 */

let gw: TestGateway;
let endpoint: HostedEndpoint;
let openai: OpenAI;
let anthropic: Anthropic;
let executors: ReturnType<typeof httpExecutorRegistry>;

type Logged = { body: Record<string, unknown> };
const providerRequests = () => gw.mock.requests.last(20) as unknown as Logged[];
const lastReceipt = async () => (await servedReceipts(gw.spool, 10_000)).at(-1) as Receipt;

async function host(hosted?: Parameters<typeof HOST_POLICY>[0], timeout = '2s') {
  await gw.applyPolicies([HOST_POLICY(hosted)], [], [], [searchTool(endpoint.url, timeout)]);
}

const ask = (script: object = SEARCH_SCRIPT) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user' as const, content: say(script) }],
  tools: [
    {
      type: 'function' as const,
      function: { name: 'open_file', parameters: { type: 'object', properties: {} } },
    },
  ],
});

/** The tool message the provider got in the second round. */
function toolResult(): string {
  const messages = providerRequests()[1]?.body.messages as Array<Record<string, unknown>>;
  const tool = messages.at(-1) as Record<string, unknown>;
  expect(tool.role).toBe('tool');
  return tool.content as string;
}

beforeAll(async () => {
  endpoint = await startHostedEndpoint();
  executors = httpExecutorRegistry({});
  gw = await startTestGateway({ hostedExecutors: executors });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-test-FAKE', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'sk-ant-test-FAKE', maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  await executors.close();
  await endpoint.close();
});
beforeEach(async () => {
  gw.mock.requests.clear();
  endpoint.calls.length = 0;
  endpoint.behaviour = 'ok';
  await host();
});

describe('a HostedTool behind a host rule', () => {
  it('is offered to the provider, its call run by the gateway, unseen by the agent', async () => {
    const completion = await openai.chat.completions.create(ask());
    expect(completion.choices[0]?.message.content).toBe('Here is what I found.');
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    const [first] = providerRequests() as [Logged];
    const offered = (first.body.tools as Array<{ function: { name: string } }>).map(
      (t) => t.function.name,
    );
    expect(offered).toEqual(['open_file', 'approved_web_search']);
    expect(endpoint.calls).toEqual([{ query: 'toolgate' }]);
    expect(JSON.parse(toolResult())).toEqual({
      results: [{ title: 'Toolgate docs', url: 'https://example.com' }],
    });
    const receipt = await lastReceipt();
    expect(receipt.hosted?.rounds[0]?.calls[0]).toMatchObject({
      name: 'approved_web_search',
      tool: 'approved-web-search',
      outcome: 'ok',
      status: 200,
      executed_by: 'wardwright',
      fidelity: 'emulated',
    });
    expect(receipt.hosted?.rounds[0]?.calls[0]?.result_hash).toMatch(/^sha256:/);
    expect(receipt.hosted?.rounds[0]?.usage?.input_tokens).toBeGreaterThan(0);
  });

  it('endpoint down: the model is told the error, the receipt records it', async () => {
    endpoint.behaviour = 'down';
    const completion = await openai.chat.completions.create(ask());
    expect(completion.choices[0]?.message.content).toBe('Here is what I found.');
    expect(toolResult()).toMatch(/answered HTTP 503/);
    expect((await lastReceipt()).hosted?.rounds[0]?.calls[0]).toMatchObject({
      outcome: 'error',
      is_error: true,
      status: 503,
    });
  });

  it('endpoint answering garbage: bad_response, told to the model (Anthropic is_error)', async () => {
    endpoint.behaviour = 'garbage';
    const message = await anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 256,
      messages: [{ role: 'user', content: say(SEARCH_SCRIPT) }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Here is what I found.' }]);
    const messages = providerRequests()[1]?.body.messages as Array<{ content: unknown }>;
    const last = messages.at(-1) as { content: unknown[] };
    expect(last.content[0]).toMatchObject({
      type: 'tool_result',
      is_error: true,
    });
    expect((await lastReceipt()).hosted?.rounds[0]?.calls[0]?.outcome).toBe('bad_response');
  });

  it('endpoint slow: the HostedTool timeout ends the call, the loop goes on', async () => {
    endpoint.behaviour = 'slow';
    await host(undefined, '200ms');
    const completion = await openai.chat.completions.create(ask());
    expect(completion.choices[0]?.message.content).toBe('Here is what I found.');
    expect(toolResult()).toMatch(/did not answer within 1s/);
    const call = (await lastReceipt()).hosted?.rounds[0]?.calls[0];
    expect(call).toMatchObject({ outcome: 'timeout', is_error: true });
    expect(call?.result_hash).toBeUndefined();
  });

  it('endpoint slow past the latency budget: the loop stops, streaming, no hang', async () => {
    endpoint.behaviour = 'slow';
    await host({ maxAddedLatency: '300ms' }, '60s');
    const stream = openai.chat.completions.stream(ask());
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.message.tool_calls ?? []).toEqual([]);
    expect(final.choices[0]?.message.content).toMatch(/hosted-tool budget is exhausted/);
    expect(providerRequests()).toHaveLength(1);
    const receipt = await lastReceipt();
    expect(receipt.hosted?.exhausted).toBe('max_added_latency');
    expect(receipt.hosted?.rounds[0]?.calls[0]?.outcome).toBe('timeout');
  });

  it('shows the hosted rounds’ text first when the policy says so (JSON and SSE)', async () => {
    await host({ showHostedText: true });
    const script = {
      rounds: [
        { call: 'approved_web_search', arguments: { query: 'x' }, text: 'Let me search.' },
        { text: 'Found it.' },
      ],
    };
    const completion = await openai.chat.completions.create(ask(script));
    expect(completion.choices[0]?.message.content).toBe('Let me search.\n\nFound it.');
    const chatStream = await openai.chat.completions.stream(ask(script)).finalChatCompletion();
    expect(chatStream.choices[0]?.message.content).toBe('Let me search.\n\nFound it.');
    const streamed = await anthropic.messages
      .stream({
        model: 'claude-sonnet-4-5',
        max_tokens: 256,
        messages: [{ role: 'user', content: say(script) }],
      })
      .finalMessage();
    expect(streamed.content.map((b) => [b.type, b.type === 'text' ? b.text : ''])).toEqual([
      ['text', 'Let me search.'],
      ['text', 'Found it.'],
    ]);
  });

  it('a mixed turn: hosted calls run, the agent’s calls are left to a later turn', async () => {
    const script = {
      rounds: [
        {
          calls: [
            { name: 'approved_web_search', arguments: { query: 'x' } },
            { name: 'open_file', arguments: {} },
          ],
        },
        { call: 'open_file', arguments: {} },
      ],
    };
    const completion = await openai.chat.completions.create(ask(script));
    expect(completion.choices[0]?.message.tool_calls?.map((c) => c.type)).toEqual(['function']);
    const messages = providerRequests()[1]?.body.messages as Array<Record<string, unknown>>;
    const assistant = messages.at(-2) as { tool_calls: Array<{ function: { name: string } }> };
    expect(assistant.tool_calls.map((c) => c.function.name)).toEqual(['approved_web_search']);
  });

  it('no executor for the tool: unavailable, told to the model', async () => {
    const bare = await startTestGateway();
    try {
      await bare.applyPolicies([HOST_POLICY()], [], [], [searchTool(endpoint.url)]);
      const client = new OpenAI({ baseURL: `${bare.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
      await client.chat.completions.create(ask());
      const receipt = (await servedReceipts(bare.spool, 100)).at(-1) as Receipt;
      expect(receipt.hosted?.rounds[0]?.calls[0]?.outcome).toBe('unavailable');
      expect(endpoint.calls).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});

describe('the agent going away mid-loop', () => {
  it('stops the hosted call in flight and records the request (499), no hang', async () => {
    endpoint.behaviour = 'slow';
    await host(undefined, '60s');
    const controller = new AbortController();
    const attempt = openai.chat.completions.create(ask(), { signal: controller.signal });
    const deadline = Date.now() + 5_000;
    while (endpoint.calls.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(endpoint.calls).toHaveLength(1);
    controller.abort();
    await expect(attempt).rejects.toThrow();
    let receipt: Receipt | undefined;
    while (Date.now() < deadline) {
      receipt = await lastReceipt();
      if (receipt?.outcome.status === 499) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(receipt?.outcome.status).toBe(499);
    expect(receipt?.hosted?.rounds[0]?.calls[0]?.outcome).toBe('timeout');
    // The provider was not called again after the agent left.
    expect(providerRequests()).toHaveLength(1);
  });
});
