import { describe, expect, it } from 'vitest';
import {
  ChatCompletionRequest,
  chatCompletion,
  chatCompletionEvents,
  declaredTools,
  lastUserText,
  type OpenAIContext,
  openAIError,
} from './openai.ts';
import { planReply, type ReplyPlan } from './script.ts';

const ctx: OpenAIContext = {
  requestHash: 'h',
  created: 1_700_000_000,
  model: 'gpt-mock',
  promptTokens: 10,
};
const textPlan: ReplyPlan = { text: 'mock: 1 tool: a', toolCalls: [] };
const callPlan: ReplyPlan = {
  text: '',
  toolCalls: [
    { name: 'a', arguments: { city: 'Paris' } },
    { name: 'b', arguments: {} },
  ],
};
const searchPlan = planReply({ hosted: 'web_search' }, [], 'q');

type Chunk = {
  choices: { delta: Record<string, unknown>; finish_reason: string | null }[];
  usage?: unknown;
};

/** Folds chunks the way a client does, to compare a stream with the non-streaming body. */
function assemble(chunks: Chunk[]) {
  const message: Record<string, unknown> = {};
  const calls: { id?: string; type?: string; function: { name?: string; arguments: string } }[] =
    [];
  let finishReason: string | null = null;
  for (const { choices } of chunks) {
    for (const { delta, finish_reason } of choices) {
      finishReason = finish_reason ?? finishReason;
      const { content, tool_calls, ...rest } = delta as {
        content?: string | null;
        tool_calls?: {
          index: number;
          id?: string;
          type?: string;
          function: { name?: string; arguments: string };
        }[];
      };
      Object.assign(message, rest);
      if (content != null)
        message.content = `${(message.content as string | null) ?? ''}${content}`;
      else if (content === null && !('content' in message)) message.content = null;
      for (const call of tool_calls ?? []) {
        calls[call.index] ??= { function: { arguments: '' } };
        const current = calls[call.index] as (typeof calls)[number];
        if (call.id) current.id = call.id;
        if (call.type) current.type = call.type;
        if (call.function.name) current.function.name = call.function.name;
        current.function.arguments += call.function.arguments;
      }
    }
  }
  return { message: calls.length ? { ...message, tool_calls: calls } : message, finishReason };
}

function chunksOf(plan: ReplyPlan, includeUsage = false) {
  return chatCompletionEvents(plan, ctx, { includeUsage }).map((e) => e.data);
}

describe('request reading', () => {
  const request = ChatCompletionRequest.parse({
    model: 'm',
    messages: [
      { role: 'system', content: 'sys' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'image_url' },
          { type: 'text', text: 'two' },
        ],
      },
    ],
    tools: [
      { type: 'function', function: { name: 'f', parameters: { type: 'object' } } },
      { type: 'custom', custom: { name: 'grammar' } },
    ],
  });

  it('lists function and custom tools', () => {
    expect(declaredTools(request)).toEqual([
      { name: 'f', function: true, parameters: { type: 'object' } },
      { name: 'grammar', function: false },
    ]);
  });

  it('reads the text parts of the last user message', () => {
    expect(lastUserText(request)).toBe('one\ntwo');
  });

  it('has no user text after a tool result', () => {
    const afterTool = ChatCompletionRequest.parse({
      model: 'm',
      messages: [
        { role: 'user', content: 'call the first tool' },
        { role: 'tool', tool_call_id: 'c', content: 'done' },
      ],
    });
    expect(lastUserText(afterTool)).toBe('');
  });
});

describe('chatCompletion', () => {
  it('answers text in the exact Chat Completions shape', () => {
    expect(chatCompletion(textPlan, ctx)).toEqual({
      id: expect.stringMatching(/^chatcmpl-[0-9a-f]{24}$/),
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'gpt-mock',
      service_tier: 'default',
      system_fingerprint: 'fp_mock',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'mock: 1 tool: a',
            refusal: null,
            annotations: [],
          },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: 10,
        completion_tokens: 5,
        total_tokens: 15,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
        completion_tokens_details: {
          reasoning_tokens: 0,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
      },
    });
  });

  it('answers tool calls with null content and stable distinct ids', () => {
    const [choice] = chatCompletion(callPlan, ctx).choices;
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    expect(choice?.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^call_/),
        type: 'function',
        function: { name: 'a', arguments: '{"city":"Paris"}' },
      },
      {
        id: expect.stringMatching(/^call_/),
        type: 'function',
        function: { name: 'b', arguments: '{}' },
      },
    ]);
    const ids = choice?.message.tool_calls?.map((c) => c.id);
    expect(new Set(ids).size).toBe(2);
    expect(chatCompletion(callPlan, ctx)).toEqual(chatCompletion(callPlan, ctx));
  });

  it('cites the hosted search result with a url_citation spanning the text', () => {
    expect(chatCompletion(searchPlan, ctx).choices[0]?.message.annotations).toEqual([
      {
        type: 'url_citation',
        url_citation: {
          url: 'https://example.com/mock-result-1',
          title: 'Mock result 1',
          start_index: 0,
          end_index: searchPlan.text.length,
        },
      },
    ]);
  });
});

describe('chatCompletionEvents', () => {
  it('streams role, words, finish and [DONE], every chunk under the same id', () => {
    const events = chatCompletionEvents(textPlan, ctx, { includeUsage: false });
    expect(events.at(-1)).toEqual({ data: '[DONE]' });
    const chunks = events.slice(0, -1).map((e) => e.data as Chunk & { id: string; object: string });
    expect(chunks.map((c) => c.choices[0]?.delta)).toEqual([
      { role: 'assistant', content: '', refusal: null },
      { content: 'mock: ' },
      { content: '1 ' },
      { content: 'tool: ' },
      { content: 'a' },
      {},
    ]);
    expect(chunks.map((c) => c.choices[0]?.finish_reason)).toEqual([
      null,
      null,
      null,
      null,
      null,
      'stop',
    ]);
    expect(new Set(chunks.map((c) => c.id))).toEqual(new Set([chatCompletion(textPlan, ctx).id]));
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && !('usage' in c))).toBe(true);
  });

  it('sends usage: null on every chunk and a final usage chunk when asked', () => {
    const chunks = chunksOf(textPlan, true).slice(0, -1) as Chunk[];
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: chatCompletion(textPlan, ctx).usage,
    });
  });

  it('opens a calls-only reply with the first call header, then argument fragments', () => {
    const chunks = chunksOf(callPlan).slice(0, -1) as Chunk[];
    const deltas = chunks.map((c) => c.choices[0]?.delta);
    expect(deltas[0]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          index: 0,
          id: expect.stringMatching(/^call_/),
          type: 'function',
          function: { name: 'a', arguments: '' },
        },
      ],
      refusal: null,
    });
    const fragmentsOfFirst = deltas.filter(
      (d) => (d?.tool_calls as { index: number; id?: string }[] | undefined)?.[0]?.index === 0,
    );
    expect(fragmentsOfFirst.length).toBeGreaterThan(2);
    expect(chunks.at(-1)?.choices[0]).toMatchObject({ delta: {}, finish_reason: 'tool_calls' });
  });

  it.each([
    ['text', textPlan],
    ['calls', callPlan],
    ['text and calls', { ...callPlan, text: 'Calling now.' }],
    ['hosted search', searchPlan],
  ])('reassembles to the non-streaming message (%s)', (_, plan) => {
    const { message, finishReason } = assemble(chunksOf(plan).slice(0, -1) as Chunk[]);
    const [choice] = chatCompletion(plan, ctx).choices;
    const { annotations, ...expected } = choice?.message ?? {};
    expect(message).toEqual({ ...expected, ...(annotations?.length ? { annotations } : {}) });
    expect(finishReason).toBe(choice?.finish_reason);
  });
});

describe('openAIError', () => {
  it.each([
    [400, 'invalid_request_error', null],
    [401, 'invalid_request_error', 'invalid_api_key'],
    [429, 'requests', 'rate_limit_exceeded'],
    [500, 'server_error', null],
    [503, 'server_error', null],
  ])('%i → %s', (status, type, code) => {
    expect(openAIError(status, 'boom')).toEqual({
      error: { message: 'boom', type, param: null, code },
    });
  });

  it('takes an explicit type', () => {
    expect(openAIError(429, 'quota', 'insufficient_quota').error.type).toBe('insufficient_quota');
  });
});
