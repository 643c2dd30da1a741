import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../json/deep-freeze.ts';
import { HostedToolEvidence, ToolCallEvidence } from '../receipt/receipt-schema.ts';
import { classifyAnthropicBlock, enforceAnthropicResponse } from './anthropic-response.ts';
import { fakeContext } from './fake-response-context.ts';

function message(content: unknown[], stopReason = 'tool_use') {
  return {
    id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 472, output_tokens: 89 },
  };
}

type Body = ReturnType<typeof message>;
const contentOf = (body: unknown) => (body as Body).content;

const text = (t: string) => ({ type: 'text', text: t });
const toolUse = (id: string, name: string, input: unknown) => ({
  type: 'tool_use',
  id,
  name,
  input,
});
const CONTEXT = { rename: { mcp__fs__read: 'fs/read' }, blocked: ['delete_repo'] };

const webSearchUse = {
  type: 'server_tool_use',
  id: 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE',
  name: 'web_search',
  input: { query: 'weather paris' },
};
const webSearchResult = {
  type: 'web_search_tool_result',
  tool_use_id: 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE',
  content: [
    {
      type: 'web_search_result',
      url: 'https://meteo.example/paris',
      title: 'Paris',
      encrypted_content: 'EqgfCioIARgBIiQ3',
      page_age: 'April 30, 2025',
    },
    {
      type: 'web_search_result',
      url: 'https://news.example/weather',
      title: 'News',
      encrypted_content: 'Eo8BCioIAhgBIiQy',
      page_age: null,
    },
  ],
};
const citedText = {
  type: 'text',
  text: 'It is sunny in Paris.',
  citations: [
    {
      type: 'web_search_result_location',
      url: 'https://meteo.example/paris',
      title: 'Paris',
      encrypted_index: 'Eo8BCioIAhgB',
      cited_text: 'Sunny',
    },
  ],
};
const webFetchUse = {
  type: 'server_tool_use',
  id: 'srvtoolu_fetch_1',
  name: 'web_fetch',
  input: { url: 'https://evil.example/' },
};
const webFetchResult = {
  type: 'web_fetch_tool_result',
  tool_use_id: 'srvtoolu_fetch_1',
  content: {
    type: 'web_fetch_result',
    url: 'https://evil.example/',
    content: {
      type: 'document',
      source: { type: 'text', media_type: 'text/plain', data: 'secret' },
    },
    retrieved_at: '2025-08-25T10:30:00Z',
  },
};

describe('enforceAnthropicResponse', () => {
  it.each([
    {
      name: 'renames a tool_use back to the agent name',
      content: [text('Reading.'), toolUse('toolu_1', 'mcp__fs__read', { path: '/a' })],
      expected: [text('Reading.'), toolUse('toolu_1', 'fs/read', { path: '/a' })],
      stop: 'tool_use',
    },
    {
      name: 'removes a blocked tool_use among allowed ones',
      content: [
        toolUse('toolu_1', 'delete_repo', {}),
        toolUse('toolu_2', 'get_time', { tz: 'CET' }),
      ],
      expected: [toolUse('toolu_2', 'get_time', { tz: 'CET' })],
      stop: 'tool_use',
    },
    {
      name: 'rewrites stop_reason when every tool_use is blocked',
      content: [text('On it.'), toolUse('toolu_1', 'delete_repo', { repo: 'x' })],
      expected: [text('On it.')],
      stop: 'end_turn',
    },
  ])('$name', ({ content, expected, stop }) => {
    const { ctx } = fakeContext('anthropic-messages', CONTEXT);
    const { body, evidence } = enforceAnthropicResponse(message(content), ctx);
    expect(contentOf(body)).toEqual(expected);
    expect((body as Body).stop_reason).toBe(stop);
    expect(evidence.finish_reason).toBe(stop === 'end_turn' ? 'tool_use->end_turn' : undefined);
    expect(evidence.tool_calls).toHaveLength(content.filter((b) => b.type === 'tool_use').length);
    for (const e of evidence.tool_calls) expect(ToolCallEvidence.safeParse(e).success).toBe(true);
  });

  it('passes id, provider name and the input object to decideCall', () => {
    const { ctx, calls } = fakeContext('anthropic-messages', CONTEXT);
    enforceAnthropicResponse(message([toolUse('toolu_9', 'mcp__fs__read', { path: '/x' })]), ctx);
    expect(calls).toEqual([
      { id: 'toolu_9', providerName: 'mcp__fs__read', rawArguments: { path: '/x' } },
    ]);
  });

  it('records hosted web_search blocks and keeps them, text citations untouched', () => {
    const { ctx, hostedEvents } = fakeContext('anthropic-messages', CONTEXT);
    const input = message([webSearchUse, webSearchResult, citedText], 'end_turn');
    const { body, evidence } = enforceAnthropicResponse(input, ctx);
    expect(body).toBe(input);
    expect(hostedEvents).toEqual([
      {
        id: webSearchUse.id,
        providerType: 'server_tool_use',
        name: 'web_search',
        input: { query: 'weather paris' },
      },
      {
        id: webSearchUse.id,
        providerType: 'web_search_tool_result',
        sources: ['https://meteo.example/paris', 'https://news.example/weather'],
      },
    ]);
    expect(evidence.hosted_tool_events).toHaveLength(2);
    for (const e of evidence.hosted_tool_events)
      expect(HostedToolEvidence.safeParse(e).success).toBe(true);
  });

  it('strips a blocked hosted call together with its result', () => {
    const { ctx, hostedEvents } = fakeContext('anthropic-messages', {
      blockedHosted: ['web_fetch'],
    });
    const input = message(
      [webSearchUse, webSearchResult, webFetchUse, webFetchResult, citedText],
      'end_turn',
    );
    const { body, evidence } = enforceAnthropicResponse(input, ctx);
    expect(contentOf(body)).toEqual([webSearchUse, webSearchResult, citedText]);
    expect(hostedEvents[3]).toEqual({
      id: 'srvtoolu_fetch_1',
      providerType: 'web_fetch_tool_result',
      sources: ['https://evil.example/'],
    });
    expect(evidence.hosted_tool_events.map((e) => e.policy_state)).toEqual([
      'allowed',
      'allowed',
      'blocked',
      'allowed',
    ]);
  });

  it('strips a blocked result alone', () => {
    const { ctx } = fakeContext('anthropic-messages', {
      blockedHosted: ['code_execution_tool_result'],
    });
    const use = {
      type: 'server_tool_use',
      id: 'srvtoolu_c',
      name: 'code_execution',
      input: { code: 'print(1)' },
    };
    const result = {
      type: 'code_execution_tool_result',
      tool_use_id: 'srvtoolu_c',
      content: {
        type: 'code_execution_result',
        stdout: '1\n',
        stderr: '',
        return_code: 0,
        content: [],
      },
    };
    const { body } = enforceAnthropicResponse(message([use, result], 'end_turn'), ctx);
    expect(contentOf(body)).toEqual([use]);
  });

  it.each([
    [
      'web_search_tool_result',
      { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' },
      'max_uses_exceeded',
    ],
    [
      'web_fetch_tool_result',
      { type: 'web_fetch_tool_error', error_code: 'url_not_accessible' },
      'url_not_accessible',
    ],
    [
      'bash_code_execution_tool_result',
      { type: 'bash_code_execution_tool_result_error', error_code: 'unavailable' },
      'unavailable',
    ],
    [
      'text_editor_code_execution_tool_result',
      { type: 'text_editor_code_execution_tool_result_error', error_code: 'file_not_found' },
      'file_not_found',
    ],
  ])('reports the error code of a %s error', (type, content, error) => {
    const { ctx, hostedEvents } = fakeContext('anthropic-messages');
    enforceAnthropicResponse(
      message([{ type, tool_use_id: 'srvtoolu_e', content }], 'end_turn'),
      ctx,
    );
    expect(hostedEvents).toEqual([{ id: 'srvtoolu_e', providerType: type, error }]);
  });

  it('describes MCP connector blocks and strips a blocked one with its result', () => {
    const { ctx, hostedEvents } = fakeContext('anthropic-messages', {
      blockedHosted: ['github/delete_repo'],
    });
    const use = {
      type: 'mcp_tool_use',
      id: 'mcptoolu_1',
      name: 'delete_repo',
      server_name: 'github',
      input: { repo: 'x' },
    };
    const result = {
      type: 'mcp_tool_result',
      tool_use_id: 'mcptoolu_1',
      is_error: false,
      content: [text('done')],
    };
    const { body } = enforceAnthropicResponse(
      message([text('a'), use, result, text('b')], 'end_turn'),
      ctx,
    );
    expect(contentOf(body)).toEqual([text('a'), text('b')]);
    expect(hostedEvents).toEqual([
      {
        id: 'mcptoolu_1',
        providerType: 'mcp_tool_use',
        name: 'github/delete_repo',
        server: 'github',
        input: { repo: 'x' },
      },
      { id: 'mcptoolu_1', providerType: 'mcp_tool_result' },
    ]);
  });

  it('passes thinking and unknown blocks untouched', () => {
    const { ctx } = fakeContext('anthropic-messages', CONTEXT);
    const thinking = { type: 'thinking', thinking: 'hmm', signature: 'sig' };
    const redacted = { type: 'redacted_thinking', data: 'xyz' };
    const input = message([thinking, redacted, toolUse('t', 'delete_repo', {})]);
    const { body } = enforceAnthropicResponse(input, ctx);
    expect(contentOf(body)[0]).toBe(thinking);
    expect(contentOf(body)[1]).toBe(redacted);
  });

  it('never mutates its input', () => {
    const { ctx } = fakeContext('anthropic-messages', { ...CONTEXT, blockedHosted: ['web_fetch'] });
    const input = message([
      text('x'),
      webFetchUse,
      webFetchResult,
      toolUse('a', 'delete_repo', {}),
      toolUse('b', 'mcp__fs__read', {}),
    ]);
    const snapshot = structuredClone(input);
    const { body } = enforceAnthropicResponse(deepFreeze(input), ctx);
    expect(input).toEqual(snapshot);
    expect(contentOf(body)[0]).toBe(input.content[0]);
    expect((body as Body).usage).toBe(input.usage);
  });

  it('returns the same body when nothing changes', () => {
    const { ctx } = fakeContext('anthropic-messages', CONTEXT);
    const input = message([text('x'), toolUse('a', 'get_time', {})]);
    expect(enforceAnthropicResponse(input, ctx).body).toBe(input);
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['a string', 'x'],
    ['an array', []],
    [
      'an error body',
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    ],
    ['content not an array', { content: 'x' }],
    ['odd blocks', { content: [null, 1, 'x', { type: 5 }, { noType: true }] }],
  ])('does not throw on %s', (_name, input) => {
    const { ctx } = fakeContext('anthropic-messages', CONTEXT);
    const result = enforceAnthropicResponse(input, ctx);
    expect(result.body).toBe(input);
    expect(result.evidence).toEqual({ tool_calls: [], hosted_tool_events: [] });
  });
});

describe('classifyAnthropicBlock', () => {
  it.each([
    ['tool_use', 'tool_use'],
    ['server_tool_use', 'hosted_use'],
    ['mcp_tool_use', 'hosted_use'],
    ['web_search_tool_result', 'hosted_result'],
    ['mcp_tool_result', 'hosted_result'],
    ['tool_result', 'other'],
    ['text', 'other'],
    [undefined, 'other'],
  ])('%s → %s', (type, kind) => {
    expect(classifyAnthropicBlock(type)).toBe(kind);
  });
});
