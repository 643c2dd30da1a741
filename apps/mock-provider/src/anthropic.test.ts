import { describe, expect, it } from 'vitest';
import {
  type AnthropicContext,
  anthropicError,
  declaredTools,
  lastUserText,
  MessagesRequest,
  message,
  messageEvents,
} from './anthropic.ts';
import { planReply, type ReplyPlan, WEB_SEARCH_ANSWER } from './script.ts';
import type { SseEvent } from './sse.ts';

const ctx: AnthropicContext = { requestHash: 'h', model: 'claude-mock', inputTokens: 10 };
const textPlan: ReplyPlan = { text: 'mock: 0 tools', toolCalls: [] };
const callPlan: ReplyPlan = { text: '', toolCalls: [{ name: 'a', arguments: { city: 'Paris' } }] };
const searchPlan = planReply({ hosted: 'web_search' }, [], 'capital of France');

type Block = { type: string; text?: string; citations?: unknown[]; input?: unknown };
/** Every field any event carries; each event has only its own. */
type EventData = {
  type: string;
  index: number;
  message: { content: Block[]; usage: object };
  content_block: Block;
  delta: { type: string; text: string; citation: unknown; partial_json: string };
  usage: object;
};

/** Folds a stream into a message the way the SDK's MessageStream does. */
function assemble(events: SseEvent[]) {
  let snapshot = { content: [] as Block[], usage: {} };
  const json: string[] = [];
  for (const event of events) {
    const data = event.data as EventData;
    const block = snapshot.content[data.index] as Block;
    switch (data.type) {
      case 'message_start':
        snapshot = structuredClone(data.message);
        break;
      case 'content_block_start':
        snapshot.content.push(structuredClone(data.content_block));
        json[data.index] = '';
        break;
      case 'content_block_delta':
        if (data.delta.type === 'text_delta') block.text += data.delta.text;
        if (data.delta.type === 'citations_delta') {
          block.citations = [...(block.citations ?? []), data.delta.citation];
        }
        if (data.delta.type === 'input_json_delta') json[data.index] += data.delta.partial_json;
        break;
      case 'content_block_stop':
        if (json[data.index]) block.input = JSON.parse(json[data.index] as string);
        break;
      case 'message_delta':
        Object.assign(snapshot, data.delta);
        Object.assign(snapshot.usage, data.usage);
        break;
    }
  }
  return snapshot;
}

describe('request reading', () => {
  const request = MessagesRequest.parse({
    model: 'm',
    max_tokens: 10,
    messages: [
      {
        role: 'user',
        content: [{ type: 'text', text: 'one' }, { type: 'image' }, { type: 'text', text: 'two' }],
      },
    ],
    tools: [
      { type: 'web_search_20250305', name: 'web_search', max_uses: 2 },
      { name: 'get_weather', input_schema: { type: 'object' } },
      { type: 'custom', name: 'custom_one', input_schema: { type: 'object' } },
    ],
  });

  it('tells client tools from server tools', () => {
    expect(declaredTools(request)).toEqual([
      { name: 'web_search', function: false },
      { name: 'get_weather', function: true, parameters: { type: 'object' } },
      { name: 'custom_one', function: true, parameters: { type: 'object' } },
    ]);
  });

  it('reads the text blocks of the last user message, none when it only returns tool results', () => {
    expect(lastUserText(request)).toBe('one\ntwo');
    const afterTool = MessagesRequest.parse({
      model: 'm',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'call the first tool' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'a', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] },
      ],
    });
    expect(lastUserText(afterTool)).toBe('');
  });

  it('requires max_tokens like the real API', () => {
    expect(
      MessagesRequest.safeParse({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).success,
    ).toBe(false);
  });
});

describe('message', () => {
  it('answers text in the exact Messages shape', () => {
    expect(message(textPlan, ctx)).toEqual({
      id: expect.stringMatching(/^msg_[0-9a-f]{24}$/),
      type: 'message',
      role: 'assistant',
      model: 'claude-mock',
      content: [{ type: 'text', text: 'mock: 0 tools' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: 10,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 4,
        service_tier: 'standard',
      },
    });
  });

  it('answers a tool call with a tool_use block and stop_reason tool_use', () => {
    expect(message(callPlan, ctx)).toMatchObject({
      content: [
        {
          type: 'tool_use',
          id: expect.stringMatching(/^toolu_/),
          name: 'a',
          input: { city: 'Paris' },
        },
      ],
      stop_reason: 'tool_use',
    });
  });

  it('puts hosted search blocks before the cited text', () => {
    const body = message(searchPlan, ctx);
    const [use, result, text] = body.content;
    expect(use).toEqual({
      type: 'server_tool_use',
      id: expect.stringMatching(/^srvtoolu_/),
      name: 'web_search',
      input: { query: 'capital of France' },
    });
    expect(result).toEqual({
      type: 'web_search_tool_result',
      tool_use_id: use?.id,
      content: [
        {
          type: 'web_search_result',
          url: 'https://example.com/mock-result-1',
          title: 'Mock result 1',
          encrypted_content: expect.any(String),
          page_age: 'April 1, 2025',
        },
        expect.objectContaining({
          type: 'web_search_result',
          url: 'https://example.com/mock-result-2',
        }),
      ],
    });
    expect(text).toEqual({
      type: 'text',
      text: WEB_SEARCH_ANSWER,
      citations: [
        {
          type: 'web_search_result_location',
          url: 'https://example.com/mock-result-1',
          title: 'Mock result 1',
          encrypted_index: expect.any(String),
          cited_text: WEB_SEARCH_ANSWER,
        },
      ],
    });
    expect(body.usage).toMatchObject({ server_tool_use: { web_search_requests: 1 } });
  });
});

describe('messageEvents', () => {
  it('follows Anthropic’s event order with a ping after message_start', () => {
    const events = messageEvents(textPlan, ctx);
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const e of events) expect((e.data as { type: string }).type).toBe(e.event);
    expect(events[0]?.data).toEqual({
      type: 'message_start',
      message: {
        ...message(textPlan, ctx),
        content: [],
        stop_reason: null,
        usage: { ...message(textPlan, ctx).usage, output_tokens: 1 },
      },
    });
    expect(events.at(-2)?.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 4 },
    });
  });

  it('streams a tool input as an empty block then several input_json_delta fragments', () => {
    const deltas = messageEvents(callPlan, ctx).filter((e) => e.event === 'content_block_delta');
    const fragments = deltas.map(
      (e) => (e.data as { delta: { partial_json: string } }).delta.partial_json,
    );
    expect(fragments[0]).toBe('');
    expect(fragments.length).toBeGreaterThan(3);
    expect(fragments.join('')).toBe('{"city":"Paris"}');
    expect(messageEvents(callPlan, ctx)[2]?.data).toMatchObject({
      content_block: { type: 'tool_use', name: 'a', input: {} },
    });
  });

  it.each([
    ['text', textPlan],
    ['call', callPlan],
    [
      'text and calls',
      {
        text: 'Calling.',
        toolCalls: [
          { name: 'a', arguments: {} },
          { name: 'b', arguments: { x: [1] } },
        ],
      },
    ],
    ['hosted search', searchPlan],
  ])('reassembles to the non-streaming message (%s)', (_, plan) => {
    expect(assemble(messageEvents(plan, ctx))).toEqual(message(plan, ctx));
  });
});

describe('anthropicError', () => {
  it.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [529, 'overloaded_error'],
  ])('%i → %s', (status, type) => {
    expect(anthropicError(status, 'boom')).toEqual({
      type: 'error',
      error: { type, message: 'boom' },
    });
  });
});
