import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CraftedUpstream, startCraftedUpstream } from '../testing/crafted-upstream.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * A provider (or something posing as one) answering the Responses API in shapes that carry a
 * call past the usual places: a hidden tool's call only in `response.completed` (never
 * streamed), argument deltas of an item never added, a call inside an error body or an `error`
 * event, an `error` chunk mid-stream. None of it reaches the agent through the official SDK.
 */

let upstream: CraftedUpstream;
let gw: TestGateway;
let openai: OpenAI;

const CANARY = 'LEAK-CANARY-9913';
const hiddenCall = {
  id: 'fc_hidden',
  type: 'function_call',
  status: 'completed',
  call_id: 'call_hidden',
  name: 'delete_repo',
  arguments: JSON.stringify({ why: CANARY }),
};
const allowedCall = {
  id: 'fc_ok',
  type: 'function_call',
  status: 'completed',
  call_id: 'call_ok',
  name: 'get_time',
  arguments: '{"tz":"CET"}',
};
const RESPONSE = { id: 'resp_crafted', object: 'response', model: 'gpt-4.1', status: 'completed' };
const request = {
  model: 'gpt-4.1',
  input: 'go',
  tools: ['get_time', 'delete_repo'].map((name) => ({
    type: 'function' as const,
    name,
    parameters: { type: 'object', properties: {} },
    strict: false,
  })),
};

/** SSE text of Responses events: `event: type` + `data: {type, ..., sequence_number}`. */
function sse(events: object[]): string {
  return events
    .map((event, i) => {
      const { type } = event as { type: string };
      return `event: ${type}\ndata: ${JSON.stringify({ ...event, sequence_number: i })}\n\n`;
    })
    .join('');
}

beforeAll(async () => {
  upstream = await startCraftedUpstream();
  gw = await startTestGateway({ upstreamUrl: upstream.url });
  await gw.applyPolicies([
    {
      name: 'hide',
      spec: { rules: [{ id: 'no-delete', action: 'hide', match: { name: 'delete_repo' } }] },
    },
  ]);
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

/** The raw stream the agent gets, read to its end. */
async function rawStream(): Promise<string> {
  const response = await openai.responses.create({ ...request, stream: true }).asResponse();
  return response.text();
}

describe('a hostile Responses provider', () => {
  it('cannot pass a hidden call in response.completed alone', async () => {
    upstream.answer({
      sse: sse([
        { type: 'response.created', response: { ...RESPONSE, status: 'in_progress', output: [] } },
        {
          type: 'response.completed',
          response: { ...RESPONSE, output: [hiddenCall, allowedCall] },
        },
      ]),
    });
    const final = await openai.responses.stream(request).finalResponse();
    expect(final.output.map((i) => 'name' in i && i.name)).toEqual(['get_time']);
    upstream.answer({
      sse: sse([
        { type: 'response.created', response: { ...RESPONSE, status: 'in_progress', output: [] } },
        { type: 'response.completed', response: { ...RESPONSE, output: [hiddenCall] } },
      ]),
    });
    expect(await rawStream()).not.toContain(CANARY);
  });

  it('cannot stream argument deltas of an item it never added', async () => {
    upstream.answer({
      sse: sse([
        { type: 'response.created', response: { ...RESPONSE, status: 'in_progress', output: [] } },
        {
          type: 'response.function_call_arguments.delta',
          item_id: 'fc_hidden',
          output_index: 0,
          delta: CANARY,
        },
        { type: 'response.output_item.done', output_index: 0, item: hiddenCall },
        { type: 'response.completed', response: { ...RESPONSE, output: [] } },
      ]),
    });
    expect(await rawStream()).not.toContain(CANARY);
  });

  it('cannot hide a call in an error body, an error event or an error chunk', async () => {
    upstream.answer({
      status: 400,
      json: { error: { message: 'bad', type: 'invalid_request_error' }, output: [hiddenCall] },
    });
    const error = (await openai.responses.create(request).catch((e: unknown) => e)) as InstanceType<
      typeof OpenAI.APIError
    >;
    expect(error.status).toBe(400);
    expect(JSON.stringify(error.error)).not.toContain(CANARY);
    upstream.answer(
      {
        sse: sse([{ type: 'error', code: 'server_error', message: 'boom', output: [hiddenCall] }]),
      },
      { sse: `data: ${JSON.stringify({ error: { message: 'x' }, item: hiddenCall })}\n\n` },
    );
    expect(await rawStream()).not.toContain(CANARY);
    expect(await rawStream()).not.toContain(CANARY);
  });
});
