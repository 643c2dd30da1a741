import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricValue } from '../faults/metrics.ts';
import { ReceiptRecorder } from '../receipts/receipt-recorder.ts';
import { FaultyRecorder } from '../testing/faulty-recorder.ts';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * Issue #19 item 1, after forwarding: an agent never receives anything it could act on (a tool
 * call, a finish reason, `[DONE]`) before the request's receipt is durable; when the receipt
 * cannot be spooled it gets an error instead, and when it cannot be built an error receipt is
 * written in its place. Text deltas are not held.
 */

const recorder = new FaultyRecorder();
let gw: TestGateway;
let openai: OpenAI;

beforeAll(async () => {
  gw = await startTestGateway({ recorder });
  recorder.inner = new ReceiptRecorder(gw.spool);
  await gw.applyPolicies([]);
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
});
afterAll(() => gw.close());

const TOOLS = [
  { type: 'function', function: { name: 'search', parameters: { type: 'object' } } },
] as const;
const script = JSON.stringify({
  text: 'Let me look that up.',
  call: 'search',
  arguments: { q: 'x' },
});

/** Starts a streamed request; collects what reaches the agent, chunk by chunk. */
function streamRequest() {
  let received = '';
  const done = fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: `mock: ${script}` }],
      tools: TOOLS,
    }),
  }).then(async (response) => {
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      received += decoder.decode(chunk, { stream: true });
    }
    return response;
  });
  return { done, received: () => received };
}

async function requestsCounted(status: string): Promise<number> {
  return metricValue(await gw.metrics.registry.metrics(), 'toolgate_gateway_requests_total', {
    surface: 'openai-chat',
    status,
  });
}

describe('a streamed answer', () => {
  it('sends text at once but holds the tool call and [DONE] until the receipt is spooled', async () => {
    recorder.mode = 'gate';
    recorder.close();
    const stream = streamRequest();
    const deadline = Date.now() + 5000;
    while (!stream.received().includes('"content":"Let') && Date.now() < deadline) await sleep(10);
    expect(stream.received()).toContain('"content":"Let');
    await sleep(200); // the provider has long finished: everything else waits for the receipt
    expect(stream.received()).not.toContain('tool_calls');
    expect(stream.received()).not.toContain('[DONE]');
    expect(stream.received()).not.toContain('finish_reason":"');
    recorder.release();
    const response = await stream.done;
    expect(response.status).toBe(200);
    expect(stream.received()).toContain('"tool_calls"');
    expect(stream.received()).toMatch(/data: \[DONE\]\n\n$/);
    recorder.mode = 'pass';
  });

  it('ends with an error event instead of the tail when the receipt cannot be spooled', async () => {
    recorder.mode = 'spool-fails';
    const ok = await requestsCounted('200');
    const stream = streamRequest();
    await stream.done;
    expect(stream.received()).toContain('"content":"Let');
    expect(stream.received()).not.toContain('tool_calls');
    expect(stream.received()).not.toContain('[DONE]');
    expect(stream.received()).toContain('gateway cannot record receipts right now');
    // The official SDK raises it as an error, after the text.
    const sdk = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: `mock: ${script}` }],
      tools: TOOLS as never,
    });
    const calls: unknown[] = [];
    await expect(
      (async () => {
        for await (const chunk of sdk) calls.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
      })(),
    ).rejects.toThrow(/cannot record receipts/);
    expect(calls).toEqual([]);
    expect(await requestsCounted('200')).toBe(ok);
    expect(await requestsCounted('503')).toBeGreaterThanOrEqual(2);
    recorder.mode = 'pass';
  });
});

describe('a streamed Responses answer', () => {
  const respond = () =>
    openai.responses.stream({
      model: 'gpt-4.1-mini',
      input: `mock: ${script}`,
      tools: [{ type: 'function', name: 'search', parameters: { type: 'object' }, strict: false }],
    });

  it('streams text at once but holds the call and response.completed until the receipt is spooled', async () => {
    recorder.mode = 'gate';
    recorder.close();
    const stream = respond();
    const seen: string[] = [];
    stream.on('event', (event) => seen.push(event.type));
    const deadline = Date.now() + 5000;
    while (!seen.includes('response.output_text.delta') && Date.now() < deadline) await sleep(10);
    expect(seen).toContain('response.output_text.delta');
    await sleep(200);
    expect(seen).not.toContain('response.completed');
    expect(seen.filter((t) => t === 'response.output_item.added')).toHaveLength(1); // the text
    recorder.release();
    const final = await stream.finalResponse();
    expect(final.output.map((i) => i.type)).toEqual(['message', 'function_call']);
    recorder.mode = 'pass';
  });

  it('ends with an error the SDK raises, and no call, when the receipt cannot be spooled', async () => {
    recorder.mode = 'spool-fails';
    const stream = respond();
    const types: string[] = [];
    await expect(
      (async () => {
        for await (const event of stream) types.push(event.type);
      })(),
    ).rejects.toThrow(/cannot record receipts/);
    expect(types).toContain('response.output_text.delta');
    expect(types).not.toContain('response.function_call_arguments.delta');
    expect(types).not.toContain('response.completed');
    recorder.mode = 'pass';
  });
});

describe('a receipt that cannot be built', () => {
  it('is replaced by an error receipt, and the agent gets an error naming no internals', async () => {
    for (const stream of [false, true]) {
      recorder.mode = 'build-fails-once';
      const response = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'gpt-4o-mini',
          stream,
          messages: [{ role: 'user', content: `mock: ${script}` }],
          tools: TOOLS,
        }),
      });
      const text = await response.text();
      const id = response.headers.get('x-toolgate-receipt-id');
      expect(id, text).toMatch(/^rcpt_/);
      if (stream) {
        expect(text).not.toContain('tool_calls');
        expect(text).toContain('gateway could not record this request');
      } else {
        expect(response.status).toBe(500);
        expect(text).not.toContain('canonicalize');
      }
      const receipt = (await servedReceipts(gw.spool)).find((r) => r.id === id);
      expect(receipt?.outcome.status).toBe(500);
      expect(receipt?.outcome.error).toMatch(
        /could not record this request \(provider status 200\)/,
      );
      expect(receipt?.tools).toEqual([]);
    }
  });
});
