import { describe, expect, it } from 'vitest';
import { readAnswer } from './round-answer.ts';
import { nextRequest } from './round-conversation.ts';
import { createToolInfoExecutor } from './tool-info-executor.ts';

const sse = (events: Array<[string | undefined, object]>) =>
  events
    .map(([event, data]) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`)
    .join('');

describe('readAnswer', () => {
  it('collects an OpenAI Chat stream: deltas, split arguments, usage', () => {
    const text = `${sse([
      [undefined, { choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' } }] }],
      [
        undefined,
        {
          choices: [
            {
              index: 0,
              delta: {
                tool_calls: [
                  {
                    index: 0,
                    id: 'call_1',
                    type: 'function',
                    function: { name: 'tool_info', arguments: '{"na' },
                  },
                ],
              },
            },
          ],
        },
      ],
      [
        undefined,
        {
          choices: [
            {
              index: 0,
              delta: { tool_calls: [{ index: 0, function: { arguments: 'me":"x"}' } }] },
            },
          ],
        },
      ],
      [undefined, { choices: [], usage: { prompt_tokens: 10, completion_tokens: 3 } }],
    ])}data: [DONE]\n\n`;
    const answer = readAnswer('openai-chat', text, true);
    expect(answer?.text).toBe('Hi');
    expect(answer?.calls).toEqual([
      { id: 'call_1', name: 'tool_info', arguments: { name: 'x' }, rawArguments: '{"name":"x"}' },
    ]);
    expect(answer?.usage).toEqual({ input_tokens: 10, output_tokens: 3 });
  });

  it('collects an Anthropic stream into content blocks', () => {
    const text = sse([
      ['message_start', { type: 'message_start', message: { usage: { input_tokens: 7 } } }],
      [
        'content_block_start',
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      ],
      [
        'content_block_delta',
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me' } },
      ],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      [
        'content_block_start',
        {
          type: 'content_block_start',
          index: 1,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'tool_info', input: {} },
        },
      ],
      [
        'content_block_delta',
        {
          type: 'content_block_delta',
          index: 1,
          delta: { type: 'input_json_delta', partial_json: '{"name":' },
        },
      ],
      [
        'content_block_delta',
        {
          type: 'content_block_delta',
          index: 1,
          delta: { type: 'input_json_delta', partial_json: '"x"}' },
        },
      ],
      ['content_block_stop', { type: 'content_block_stop', index: 1 }],
      ['message_delta', { type: 'message_delta', usage: { output_tokens: 5 } }],
    ]);
    const answer = readAnswer('anthropic-messages', text, true);
    expect(answer?.turn).toEqual([
      { type: 'text', text: 'Let me' },
      { type: 'tool_use', id: 'toolu_1', name: 'tool_info', input: { name: 'x' } },
    ]);
    expect(answer?.usage).toEqual({ input_tokens: 7, output_tokens: 5 });
  });

  it('reads Gemini calls without ids by position, and gives back no made-up id', () => {
    const body = JSON.stringify({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ functionCall: { name: 'tool_info', args: { name: 'x' } } }],
          },
        },
      ],
    });
    const answer = readAnswer('gemini', body, false);
    expect(answer?.calls[0]?.id).toBe('gemini-call-0');
    const next = nextRequest('gemini', { contents: [] }, answer as never, [
      { call: answer?.calls[0] as never, content: '{"ok":true}', isError: false },
    ]);
    expect(next.contents).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'tool_info', args: { name: 'x' } } }] },
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'tool_info', response: { output: '{"ok":true}' } } }],
      },
    ]);
  });

  it('is undefined for what it cannot read (the answer then goes to the agent)', () => {
    expect(readAnswer('openai-chat', 'not json', false)).toBeUndefined();
    expect(
      readAnswer('openai-responses', sse([[undefined, { type: 'response.created' }]]), true),
    ).toBeUndefined();
  });
});

describe('nextRequest', () => {
  it('OpenAI Chat: a mixed turn keeps only the hosted calls, results by tool_call_id', () => {
    const answer = readAnswer(
      'openai-chat',
      JSON.stringify({
        choices: [
          {
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'h', type: 'function', function: { name: 'tool_info', arguments: '{}' } },
                { id: 'a', type: 'function', function: { name: 'read_file', arguments: '{}' } },
              ],
            },
          },
        ],
      }),
      false,
    );
    const hosted = answer?.calls[0];
    const next = nextRequest(
      'openai-chat',
      { messages: [{ role: 'user', content: 'q' }] },
      answer as never,
      [{ call: hosted as never, content: 'info', isError: false }],
    );
    expect(next.messages).toEqual([
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'h', type: 'function', function: { name: 'tool_info', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'h', content: 'info' },
    ]);
  });

  it('Responses: a string input becomes a user item, outputs by call_id', () => {
    const answer = readAnswer(
      'openai-responses',
      JSON.stringify({
        output: [
          {
            type: 'function_call',
            id: 'fc_1',
            call_id: 'c1',
            name: 'tool_info',
            arguments: '{"name":"x"}',
          },
        ],
      }),
      false,
    );
    const next = nextRequest('openai-responses', { input: 'hello' }, answer as never, [
      { call: answer?.calls[0] as never, content: 'r', isError: true },
    ]);
    expect(next.input).toEqual([
      { role: 'user', content: 'hello' },
      {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'c1',
        name: 'tool_info',
        arguments: '{"name":"x"}',
      },
      { type: 'function_call_output', call_id: 'c1', output: 'r' },
    ]);
  });
});

describe('tool_info', () => {
  const info = createToolInfoExecutor(
    new Map([
      [
        'create_issue',
        {
          name: 'create_issue',
          description: 'Create an issue',
          parameters: {
            type: 'object',
            properties: { title: { type: 'string' } },
            required: ['title'],
          },
        },
      ],
    ]),
  );
  const call = (args: unknown) =>
    info.execute({
      id: '1',
      name: 'tool_info',
      arguments: args as never,
      signal: new AbortController().signal,
    });

  it('summarises by default and gives the full schema with include_schema', async () => {
    expect(JSON.parse((await call({ name: 'create_issue' })).content)).toMatchObject({
      name: 'create_issue',
      description: 'Create an issue',
      parameters: ['title'],
      required: ['title'],
    });
    const full = await call({ name: 'create_issue', include_schema: true });
    expect(full.outcome).toBe('ok');
    expect(JSON.parse(full.content).parameters).toEqual({
      type: 'object',
      properties: { title: { type: 'string' } },
      required: ['title'],
    });
  });

  it('answers bad calls with an error result naming what is wrong', async () => {
    expect(await call({ name: 'nope' })).toMatchObject({ outcome: 'error', isError: true });
    expect((await call({ name: 'nope' })).content).toMatch(/they are: create_issue/);
    expect((await call('garbage')).content).toMatch(/needs \{"name"/);
    expect((await call({ name: 'create_issue', include_schema: 'yes' })).content).toMatch(
      /include_schema/,
    );
  });
});
