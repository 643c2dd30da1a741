import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../json/deep-freeze.ts';
import { HostedToolEvidence, ToolCallEvidence } from '../receipt/receipt-schema.ts';
import { fakeContext } from './fake-response-context.ts';
import { decideOpenAIToolCall, enforceOpenAIResponse } from './openai-response.ts';

function call(id: string, name: string, args: string) {
  return { id, type: 'function', function: { name, arguments: args } };
}

type Json = Record<string, unknown>;

function completion(message: Json, finishReason = 'tool_calls'): Json & { choices: Json[] } {
  return {
    id: 'chatcmpl-AbC123',
    object: 'chat.completion',
    created: 1735689600,
    model: 'gpt-4o-2024-08-06',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', refusal: null, annotations: [], ...message },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage: { prompt_tokens: 80, completion_tokens: 40, total_tokens: 120 },
    service_tier: 'default',
    system_fingerprint: 'fp_f33640a400',
  };
}

type Body = ReturnType<typeof completion>;

const messageOf = (body: unknown) => (body as Body).choices[0]?.message as Record<string, unknown>;
const finishOf = (body: unknown) => (body as Body).choices[0]?.finish_reason;

const CONTEXT = { rename: { mcp__weather__get: 'weather/get' }, blocked: ['delete_repo'] };

describe('enforceOpenAIResponse', () => {
  it.each([
    {
      name: 'renames a call back to the agent name',
      calls: [call('call_1', 'mcp__weather__get', '{"city":"Paris"}')],
      expectedCalls: [call('call_1', 'weather/get', '{"city":"Paris"}')],
      finish: 'tool_calls',
    },
    {
      name: 'keeps an allowed call with its own name as is',
      calls: [call('call_1', 'get_time', '{}')],
      expectedCalls: [call('call_1', 'get_time', '{}')],
      finish: 'tool_calls',
    },
    {
      name: 'removes a blocked call among allowed ones',
      calls: [
        call('call_1', 'get_time', '{}'),
        call('call_2', 'delete_repo', '{"repo":"x"}'),
        call('call_3', 'mcp__weather__get', '{}'),
      ],
      expectedCalls: [call('call_1', 'get_time', '{}'), call('call_3', 'weather/get', '{}')],
      finish: 'tool_calls',
    },
    {
      name: 'removes all blocked calls and rewrites the finish reason',
      calls: [call('call_2', 'delete_repo', '{}'), call('call_4', 'delete_repo', '{"a":1}')],
      expectedCalls: undefined,
      finish: 'stop',
    },
  ])('$name', ({ calls, expectedCalls, finish }) => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const { body, evidence } = enforceOpenAIResponse(
      completion({ content: null, tool_calls: calls }),
      ctx,
    );
    expect(messageOf(body).tool_calls).toEqual(expectedCalls);
    expect(finishOf(body)).toBe(finish);
    expect(evidence.tool_calls.map((e) => e.id)).toEqual(calls.map((c) => c.id));
    expect(evidence.finish_reason).toBe(finish === 'stop' ? 'tool_calls->stop' : undefined);
    for (const e of evidence.tool_calls) expect(ToolCallEvidence.safeParse(e).success).toBe(true);
  });

  it('sets content to "" when a choice loses all its calls, and drops tool_calls', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const { body } = enforceOpenAIResponse(
      completion({ content: null, tool_calls: [call('c', 'delete_repo', '{}')] }),
      ctx,
    );
    expect(messageOf(body)).toEqual({
      role: 'assistant',
      content: '',
      refusal: null,
      annotations: [],
    });
    expect(messageOf(body)).not.toHaveProperty('tool_calls');
  });

  it('keeps text content when all calls are blocked', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const { body } = enforceOpenAIResponse(
      completion({ content: 'Sure.', tool_calls: [call('c', 'delete_repo', '{}')] }),
      ctx,
    );
    expect(messageOf(body).content).toBe('Sure.');
  });

  it('passes the raw argument string, provider name and id to decideCall', () => {
    const { ctx, calls } = fakeContext('openai-chat', CONTEXT);
    enforceOpenAIResponse(
      completion({ tool_calls: [call('call_9', 'mcp__weather__get', '{"x": 1}')] }),
      ctx,
    );
    expect(calls).toEqual([
      { id: 'call_9', providerName: 'mcp__weather__get', rawArguments: '{"x": 1}' },
    ]);
  });

  it('handles custom tool calls', () => {
    const { ctx, calls } = fakeContext('openai-chat', {
      rename: { p_grammar: 'grammar' },
      blocked: ['shell'],
    });
    const input = completion({
      content: null,
      tool_calls: [
        { id: 'c1', type: 'custom', custom: { name: 'p_grammar', input: 'SELECT 1' } },
        { id: 'c2', type: 'custom', custom: { name: 'shell', input: 'rm -rf /' } },
      ],
    });
    const { body } = enforceOpenAIResponse(input, ctx);
    expect(messageOf(body).tool_calls).toEqual([
      { id: 'c1', type: 'custom', custom: { name: 'grammar', input: 'SELECT 1' } },
    ]);
    expect(calls.map((c) => c.rawArguments)).toEqual(['SELECT 1', 'rm -rf /']);
  });

  it.each([
    [
      'allowed and renamed',
      'mcp__weather__get',
      { name: 'weather/get', arguments: '{}' },
      'function_call',
    ],
    ['blocked', 'delete_repo', undefined, 'stop'],
  ])('handles a legacy function_call (%s)', (_label, name, expected, finish) => {
    const { ctx, calls } = fakeContext('openai-chat', CONTEXT);
    const { body, evidence } = enforceOpenAIResponse(
      completion({ content: null, function_call: { name, arguments: '{}' } }, 'function_call'),
      ctx,
    );
    expect(messageOf(body).function_call).toEqual(expected);
    expect(finishOf(body)).toBe(finish);
    expect(calls[0]?.id).toBe('');
    expect(evidence.tool_calls).toHaveLength(1);
  });

  it('records url_citation annotations as one hosted web_search event per choice', () => {
    const { ctx, hostedEvents } = fakeContext('openai-chat');
    const annotations = [
      {
        type: 'url_citation',
        url_citation: { url: 'https://a.example/', title: 'A', start_index: 0, end_index: 5 },
      },
      {
        type: 'url_citation',
        url_citation: { url: 'https://b.example/', title: 'B', start_index: 6, end_index: 9 },
      },
      {
        type: 'url_citation',
        url_citation: { url: 'https://a.example/', title: 'A', start_index: 10, end_index: 12 },
      },
    ];
    const input = completion({ content: 'Paris is sunny.', annotations }, 'stop');
    const { body, evidence } = enforceOpenAIResponse(input, ctx);
    expect(body).toBe(input);
    expect(hostedEvents).toEqual([
      {
        providerType: 'url_citation',
        name: 'web_search',
        sources: ['https://a.example/', 'https://b.example/'],
      },
    ]);
    expect(evidence.hosted_tool_events).toHaveLength(1);
    expect(HostedToolEvidence.safeParse(evidence.hosted_tool_events[0]).success).toBe(true);
  });

  it('strips url_citation annotations when web_search is blocked', () => {
    const { ctx } = fakeContext('openai-chat', { blockedHosted: ['web_search'] });
    const other = { type: 'file_citation', file_citation: { file_id: 'f' } };
    const input = completion(
      {
        content: 'x',
        annotations: [{ type: 'url_citation', url_citation: { url: 'https://a.example/' } }, other],
      },
      'stop',
    );
    expect(messageOf(enforceOpenAIResponse(input, ctx).body).annotations).toEqual([other]);
  });

  it('enforces every choice of an n>1 response', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const input = completion({ content: null, tool_calls: [call('a', 'delete_repo', '{}')] });
    input.choices.push({
      index: 1,
      message: {
        role: 'assistant',
        refusal: null,
        annotations: [],
        content: null,
        tool_calls: [call('b', 'mcp__weather__get', '{}')],
      },
      logprobs: null,
      finish_reason: 'tool_calls',
    });
    const { body, evidence } = enforceOpenAIResponse(input, ctx);
    const choices = (body as Body).choices;
    expect(choices[0]?.finish_reason).toBe('stop');
    expect(choices[1]?.finish_reason).toBe('tool_calls');
    expect((choices[1]?.message as Record<string, unknown> | undefined)?.tool_calls).toEqual([
      call('b', 'weather/get', '{}'),
    ]);
    expect(evidence.tool_calls.map((e) => e.policy_state)).toEqual(['blocked', 'allowed']);
  });

  it('never mutates its input and shares unchanged parts', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const input = completion({
      content: null,
      tool_calls: [call('a', 'delete_repo', '{}'), call('b', 'mcp__weather__get', '{}')],
    });
    input.choices.push({
      index: 1,
      message: { role: 'assistant', refusal: null, annotations: [], content: 'hi' },
      logprobs: null,
      finish_reason: 'stop',
    });
    const snapshot = structuredClone(input);
    const { body } = enforceOpenAIResponse(deepFreeze(input), ctx);
    expect(input).toEqual(snapshot);
    expect(body).not.toBe(input);
    expect((body as Body).choices[1]).toBe(input.choices[1]);
    expect((body as Body).usage).toBe(input.usage);
  });

  it('returns the same body when nothing changes', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const input = completion({ content: null, tool_calls: [call('a', 'get_time', '{}')] });
    expect(enforceOpenAIResponse(input, ctx).body).toBe(input);
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['a string', 'hello'],
    ['a number', 42],
    ['an array', [1, 2]],
    ['an object without choices', { error: { message: 'boom' } }],
    ['choices not an array', { choices: 'x' }],
    ['choice not an object', { choices: [null, 3, 'x'] }],
    ['message missing', { choices: [{ index: 0, finish_reason: 'stop' }] }],
    ['tool_calls not an array', { choices: [{ message: { tool_calls: 'x' } }] }],
    [
      'odd tool call entries',
      {
        choices: [
          { message: { tool_calls: [null, 1, { type: 'function' }, { function: { name: 3 } }] } },
        ],
      },
    ],
    ['annotations not an array', { choices: [{ message: { annotations: {} } }] }],
  ])('does not throw on %s', (_name, input) => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const result = enforceOpenAIResponse(input, ctx);
    expect(result.body).toBe(input);
    expect(result.evidence).toEqual({ tool_calls: [], hosted_tool_events: [] });
  });
});

describe('decideOpenAIToolCall', () => {
  it('returns undefined for a call without a name', () => {
    const { ctx, calls } = fakeContext('openai-chat');
    expect(decideOpenAIToolCall({ id: 'x', type: 'function', function: {} }, ctx)).toBeUndefined();
    expect(calls).toEqual([]);
  });
});
