import type { ProviderSurface } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { requestParameters } from './gen-ai.ts';
import { factAttributes, type ResponseFacts, readAnswer, streamFacts } from './response-facts.ts';

const read = (surface: ProviderSurface, answer: unknown) => {
  const facts: ResponseFacts = {};
  readAnswer(surface, answer, facts);
  return facts;
};

const sse = (events: Array<{ event?: string; data: unknown }>) =>
  events
    .map(
      ({ event, data }) =>
        `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`,
    )
    .join('');

/** The stream's bytes cut at every 7th byte: events split mid-line and mid-character. */
function streamed(surface: ProviderSurface, text: string): ResponseFacts {
  const facts = streamFacts(surface);
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += 7) facts.push(bytes.subarray(i, i + 7));
  facts.end();
  return facts.facts();
}

describe('the facts of a JSON answer', () => {
  it.each<[ProviderSurface, unknown, ResponseFacts]>([
    [
      'openai-chat',
      {
        id: 'chatcmpl-1',
        model: 'gpt-4o-2024-08-06',
        choices: [{ finish_reason: 'tool_calls' }, { finish_reason: 'stop' }],
        usage: {
          prompt_tokens: 12,
          completion_tokens: 5,
          prompt_tokens_details: { cached_tokens: 4 },
          completion_tokens_details: { reasoning_tokens: 2 },
        },
      },
      {
        id: 'chatcmpl-1',
        model: 'gpt-4o-2024-08-06',
        finishReasons: ['tool_calls', 'stop'],
        inputTokens: 12,
        outputTokens: 5,
        cacheReadTokens: 4,
        reasoningTokens: 2,
      },
    ],
    [
      'openai-responses',
      {
        id: 'resp_1',
        model: 'gpt-5',
        status: 'completed',
        usage: { input_tokens: 9, output_tokens: 3 },
      },
      {
        id: 'resp_1',
        model: 'gpt-5',
        finishReasons: ['completed'],
        inputTokens: 9,
        outputTokens: 3,
      },
    ],
    [
      'anthropic-messages',
      {
        id: 'msg_1',
        model: 'claude-sonnet-4-5',
        stop_reason: 'end_turn',
        usage: {
          input_tokens: 10,
          cache_read_input_tokens: 100,
          cache_creation_input_tokens: 5,
          output_tokens: 7,
        },
      },
      {
        id: 'msg_1',
        model: 'claude-sonnet-4-5',
        finishReasons: ['end_turn'],
        // The conventions' input count includes the cached input Anthropic counts apart.
        inputTokens: 115,
        cacheReadTokens: 100,
        cacheCreationTokens: 5,
        outputTokens: 7,
      },
    ],
    [
      'gemini',
      {
        responseId: 'r-1',
        modelVersion: 'gemini-2.5-flash',
        candidates: [{ finishReason: 'STOP' }],
        usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 4, thoughtsTokenCount: 6 },
      },
      {
        id: 'r-1',
        model: 'gemini-2.5-flash',
        finishReasons: ['STOP'],
        inputTokens: 8,
        outputTokens: 10,
        reasoningTokens: 6,
      },
    ],
  ])('%s', (surface, answer, facts) => {
    expect(read(surface, answer)).toEqual(facts);
  });

  it('takes ids, models and reasons only as short plain names, counts only as whole numbers', () => {
    expect(
      read('openai-chat', {
        id: 'has spaces and Bearer sk-abcdefghijkl',
        model: 'x'.repeat(300),
        choices: [{ finish_reason: { nested: true } }],
        usage: { prompt_tokens: -1, completion_tokens: 1.5 },
      }),
    ).toEqual({});
    expect(read('gemini', 'not an object')).toEqual({});
    expect(read('anthropic-messages', { usage: 'none' })).toEqual({});
  });

  it('becomes gen_ai attributes', () => {
    expect(
      factAttributes({
        id: 'a',
        model: 'm',
        finishReasons: ['stop'],
        inputTokens: 1,
        outputTokens: 2,
      }),
    ).toEqual({
      'gen_ai.response.id': 'a',
      'gen_ai.response.model': 'm',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 1,
      'gen_ai.usage.output_tokens': 2,
    });
    expect(factAttributes({})).toEqual({});
  });
});

describe('the facts of a stream', () => {
  it('OpenAI Chat Completions: id and model from the chunks, usage from the last', () => {
    const text = sse([
      {
        data: {
          id: 'chatcmpl-9',
          model: 'gpt-4o',
          choices: [{ delta: { content: 'hi' }, finish_reason: null }],
          usage: null,
        },
      },
      {
        data: {
          id: 'chatcmpl-9',
          model: 'gpt-4o',
          choices: [{ delta: {}, finish_reason: 'stop' }],
          usage: null,
        },
      },
      {
        data: {
          id: 'chatcmpl-9',
          model: 'gpt-4o',
          choices: [],
          usage: { prompt_tokens: 3, completion_tokens: 1 },
        },
      },
      { data: '[DONE]' },
    ]);
    expect(streamed('openai-chat', text)).toEqual({
      id: 'chatcmpl-9',
      model: 'gpt-4o',
      finishReasons: ['stop'],
      inputTokens: 3,
      outputTokens: 1,
    });
  });

  it('Anthropic: message_start, then message_delta’s stop reason and output usage', () => {
    const text = sse([
      {
        event: 'message_start',
        data: {
          type: 'message_start',
          message: {
            id: 'msg_2',
            model: 'claude-haiku',
            usage: { input_tokens: 20, output_tokens: 1, cache_read_input_tokens: 0 },
          },
        },
      },
      { event: 'content_block_delta', data: { type: 'content_block_delta', delta: { text: 'x' } } },
      {
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: 'tool_use' },
          usage: { output_tokens: 9 },
        },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
    expect(streamed('anthropic-messages', text)).toEqual({
      id: 'msg_2',
      model: 'claude-haiku',
      finishReasons: ['tool_use'],
      inputTokens: 20,
      cacheReadTokens: 0,
      outputTokens: 9,
    });
  });

  it('OpenAI Responses: the response of its lifecycle events, the last one’s usage', () => {
    const response = { id: 'resp_7', model: 'gpt-5' };
    const text = sse([
      {
        event: 'response.created',
        data: { type: 'response.created', response: { ...response, status: 'in_progress' } },
      },
      {
        event: 'response.output_text.delta',
        data: { type: 'response.output_text.delta', delta: 'x' },
      },
      {
        event: 'response.completed',
        data: {
          type: 'response.completed',
          response: {
            ...response,
            status: 'completed',
            usage: { input_tokens: 5, output_tokens: 2 },
          },
        },
      },
    ]);
    expect(streamed('openai-responses', text)).toEqual({
      id: 'resp_7',
      model: 'gpt-5',
      finishReasons: ['completed'],
      inputTokens: 5,
      outputTokens: 2,
    });
  });

  it('Gemini: each chunk a whole response, its usage growing; an unterminated last event counts', () => {
    const chunk = (count: number, finishReason?: string) => ({
      responseId: 'g-3',
      modelVersion: 'gemini-2.5-pro',
      candidates: [{ ...(finishReason ? { finishReason } : {}) }],
      usageMetadata: { promptTokenCount: 4, candidatesTokenCount: count },
    });
    const text = `${sse([{ data: chunk(1) }])}data: ${JSON.stringify(chunk(3, 'STOP'))}`;
    expect(streamed('gemini', text)).toEqual({
      id: 'g-3',
      model: 'gemini-2.5-pro',
      finishReasons: ['STOP'],
      inputTokens: 4,
      outputTokens: 3,
    });
  });

  it('skips what is not JSON, and times the first chunk', () => {
    const facts = streamFacts('openai-chat');
    expect(facts.firstChunkAt).toBeUndefined();
    facts.push(Buffer.from('data: {not json\n\n: a comment\n\n'));
    expect(facts.firstChunkAt).toBeGreaterThan(0);
    expect(facts.facts()).toEqual({});
  });
});

describe('the request settings', () => {
  it('are read where each surface keeps them, numbers only', () => {
    expect(
      requestParameters('openai-chat', {
        max_completion_tokens: 100,
        max_tokens: 50,
        temperature: 0.2,
        top_p: 'high',
        n: 2,
      }),
    ).toEqual({
      'gen_ai.request.max_tokens': 100,
      'gen_ai.request.temperature': 0.2,
      'gen_ai.request.choice.count': 2,
    });
    expect(requestParameters('anthropic-messages', { max_tokens: 1024, top_k: 5 })).toEqual({
      'gen_ai.request.max_tokens': 1024,
      'gen_ai.request.top_k': 5,
    });
    expect(
      requestParameters('gemini', {
        generationConfig: { maxOutputTokens: 64, topP: 0.9 },
        temperature: 3,
      }),
    ).toEqual({
      'gen_ai.request.max_tokens': 64,
      'gen_ai.request.top_p': 0.9,
    });
    expect(requestParameters('openai-responses', { max_output_tokens: 10 })).toEqual({
      'gen_ai.request.max_tokens': 10,
    });
    expect(requestParameters('gemini', { generationConfig: null })).toEqual({});
  });
});
