import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, type GenerateContentResponse } from '@google/genai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ReceiptRecorder } from '../receipts/receipt-recorder.ts';
import { FaultyRecorder } from '../testing/faulty-recorder.ts';
import {
  geminiAgent,
  geminiTools,
  GEMINI_TEST_MODEL as MODEL,
  say,
} from '../testing/gemini-agent.ts';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * A Gemini stream when things go wrong: nothing the agent could act on (a `functionCall` chunk,
 * the `finishReason` chunk) reaches it before the receipt is spooled; when spooling fails, or
 * the provider's stream is cut mid-way, the agent gets Google's error chunk instead — which the
 * `@google/genai` SDK raises — and no call. Text is never held.
 */

const recorder = new FaultyRecorder();
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ recorder });
  recorder.inner = new ReceiptRecorder(gw.spool);
  await gw.applyPolicies([]);
});
afterAll(() => gw.close());
afterEach(() => {
  recorder.mode = 'pass';
});

const SCRIPT = { text: 'Let me look that up.', call: 'search', arguments: { q: 'x' } };
const TOOLS = geminiTools(['search']);

/** Starts a streamed request over plain HTTP; collects what reaches the agent as it comes. */
function streamRequest(script: object = SCRIPT) {
  let received = '';
  const done = fetch(`${gw.url}/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [{ parts: [{ text: say(script) }] }], tools: TOOLS }),
  }).then(async (response) => {
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      received += decoder.decode(chunk, { stream: true });
    }
    return response;
  });
  return { done, received: () => received };
}

/** Streams with the SDK; what it yielded before it threw (if it did). */
async function sdkStream(script: object) {
  const chunks: GenerateContentResponse[] = [];
  let error: unknown;
  try {
    const stream = await geminiAgent(gw.url).models.generateContentStream({
      model: MODEL,
      contents: say(script),
      config: { tools: TOOLS },
    });
    for await (const chunk of stream) chunks.push(chunk);
  } catch (caught) {
    error = caught;
  }
  return { chunks, error };
}

describe('a Gemini stream', () => {
  it('sends text at once but holds the call and the finish until the receipt is spooled', async () => {
    recorder.mode = 'gate';
    recorder.close();
    const stream = streamRequest();
    const deadline = Date.now() + 5000;
    while (!stream.received().includes('"text":"Let') && Date.now() < deadline) await sleep(10);
    expect(stream.received()).toContain('"text":"Let');
    await sleep(200); // the provider has long finished: the rest waits for the receipt
    expect(stream.received()).not.toContain('functionCall');
    expect(stream.received()).not.toContain('finishReason');
    recorder.release();
    expect((await stream.done).status).toBe(200);
    expect(stream.received()).toContain('"functionCall":{"name":"search"');
    expect(stream.received()).toContain('"finishReason":"STOP"');
    recorder.mode = 'pass';
  });

  it('ends with an error chunk instead of the tail when the receipt cannot be spooled', async () => {
    recorder.mode = 'spool-fails';
    const stream = streamRequest();
    await stream.done;
    expect(stream.received()).toContain('"text":"Let');
    expect(stream.received()).not.toContain('functionCall');
    expect(stream.received()).toContain('"status":"UNAVAILABLE"');
    const sdk = await sdkStream(SCRIPT);
    expect(sdk.error).toBeInstanceOf(ApiError);
    // Mid-stream, as on the other surfaces, the failure is the gateway's: 502.
    expect((sdk.error as ApiError).status).toBe(502);
    expect((sdk.error as ApiError).message).toContain('cannot record receipts');
    expect(sdk.chunks.flatMap((c) => c.functionCalls ?? [])).toEqual([]);
    recorder.mode = 'pass';
  });

  it('ends a stream the provider cut with an error chunk, the call never released', async () => {
    // Three text chunks, then the connection drops before the call.
    const cut = { ...SCRIPT, cut: 3 };
    const sdk = await sdkStream(cut);
    expect(sdk.chunks.map((c) => c.text).join('')).toBe('Let me look ');
    expect(sdk.error).toBeInstanceOf(ApiError);
    expect((sdk.error as ApiError).status).toBe(502);
    expect(sdk.chunks.flatMap((c) => c.functionCalls ?? [])).toEqual([]);
    const receipts = await servedReceipts(gw.spool);
    expect(receipts.at(-1)).toMatchObject({
      surface: 'gemini',
      stream: true,
      outcome: { status: 502, error: expect.stringContaining('upstream stream failed') },
    });
  });
});
