import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockProvider, type MockProvider } from './server.ts';

/** The official clients, pointed at the mock with only baseURL changed. Retries off: errors surface at once. */
let mock: MockProvider;
let openai: OpenAI;
let anthropic: Anthropic;

const script = (value: object) => ({ headers: { 'x-mock-script': JSON.stringify(value) } });

const openAITools: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
  { type: 'function', function: { name: 'send_email', parameters: { type: 'object' } } },
];
const anthropicTools: Anthropic.Tool[] = [
  {
    name: 'get_weather',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

beforeAll(async () => {
  mock = await createMockProvider();
  openai = new OpenAI({ apiKey: 'sk-test', baseURL: `${mock.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: mock.url, maxRetries: 0 });
});
afterAll(() => mock.close());

describe('openai SDK', () => {
  const params = (content: string) => ({
    model: 'gpt-mock',
    messages: [{ role: 'user' as const, content }],
    tools: openAITools,
  });

  it('parses a text reply', async () => {
    const completion = await openai.chat.completions.create(params('hello'));
    expect(completion.choices[0]?.message.content).toBe('mock: 2 tools: get_weather, send_email');
    expect(completion._request_id).toMatch(/^req_/);
  });

  it('parses tool calls', async () => {
    const completion = await openai.chat.completions.create(params('call the first tool'));
    const [choice] = completion.choices;
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^call_/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"city"}' },
      },
    ]);
  });

  it('assembles a streamed tool call with the stream helper, equal to the non-streaming answer', async () => {
    const calls = {
      calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'hidden_tool' }],
    };
    const stream = openai.chat.completions.stream(
      { ...params('go'), stream_options: { include_usage: true } },
      script(calls),
    );
    const done: string[] = [];
    stream.on('tool_calls.function.arguments.done', (event) => done.push(event.name));
    const final = await stream.finalChatCompletion();
    expect(done).toEqual(['get_weather', 'hidden_tool']);
    expect(
      final.choices[0]?.message.tool_calls?.map((c) => [
        c.function.name,
        JSON.parse(c.function.arguments),
      ]),
    ).toEqual([
      ['get_weather', { city: 'Paris' }],
      ['hidden_tool', {}],
    ]);

    const plain = await openai.chat.completions.create(params('go'), script(calls));
    const { parsed_arguments: _, ...first } =
      final.choices[0]?.message.tool_calls?.[0]?.function ?? {};
    const plainCall = plain.choices[0]?.message.tool_calls?.[0];
    expect(first).toEqual(plainCall?.type === 'function' && plainCall.function);
    expect(final.choices[0]?.message.tool_calls?.map((c) => c.id)).toEqual(
      plain.choices[0]?.message.tool_calls?.map((c) => c.id),
    );
    expect(final.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('iterates raw chunks with create({ stream: true })', async () => {
    const stream = await openai.chat.completions.create({ ...params('hi'), stream: true });
    let text = '';
    let finish: string | null | undefined;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe('mock: 2 tools: get_weather, send_email');
    expect(finish).toBe('stop');
    expect(chunks).toBeGreaterThan(3);
  });

  it('keeps url_citation annotations from a hosted search, streamed or not', async () => {
    const plain = await openai.chat.completions.create(
      params('q'),
      script({ hosted: 'web_search' }),
    );
    const streamed = await openai.chat.completions
      .stream(params('q'), script({ hosted: 'web_search' }))
      .finalChatCompletion();
    for (const completion of [plain, streamed]) {
      expect(completion.choices[0]?.message.annotations).toEqual([
        {
          type: 'url_citation',
          url_citation: expect.objectContaining({
            url: 'https://example.com/mock-result-1',
            start_index: 0,
          }),
        },
      ]);
    }
  });

  it('surfaces a scripted error as APIError with its status', async () => {
    const error = await openai.chat.completions
      .create(params('x'), script({ error: { status: 429, message: 'slow down' } }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded', type: 'requests' });
    expect((error as Error).message).toContain('slow down');

    const server = await openai.chat.completions
      .create({ ...params('x'), stream: true }, script({ error: { status: 500 } }))
      .catch((e: unknown) => e);
    expect(server).toBeInstanceOf(OpenAI.InternalServerError);
  });

  it('reports a cut stream as an error', async () => {
    const stream = openai.chat.completions.stream(params('hi'), script({ cut: 2 }));
    await expect(stream.finalChatCompletion()).rejects.toThrow();
  });
});

describe('anthropic SDK', () => {
  const params = (content: string) => ({
    model: 'claude-mock',
    max_tokens: 256,
    messages: [{ role: 'user' as const, content }],
    tools: anthropicTools,
  });

  it('parses a tool_use reply', async () => {
    const message = await anthropic.messages.create(params('call the first tool'));
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      {
        type: 'tool_use',
        id: expect.stringMatching(/^toolu_/),
        name: 'get_weather',
        input: { city: 'city' },
      },
    ]);
    expect(message._request_id).toMatch(/^req_/);
  });

  it('assembles a streamed reply with text and tool_use, equal to the non-streaming answer', async () => {
    const calls = {
      text: 'Calling two tools.',
      calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'hidden' }],
    };
    const stream = anthropic.messages.stream(params('go'), script(calls));
    let text = '';
    stream.on('text', (delta) => {
      text += delta;
    });
    const final = await stream.finalMessage();
    expect(text).toBe('Calling two tools.');
    const plain = await anthropic.messages.create(params('go'), script(calls));
    const { parsed_output, ...assembled } = final;
    expect(parsed_output).toBeNull();
    expect(JSON.parse(JSON.stringify(assembled))).toEqual(JSON.parse(JSON.stringify(plain)));
    expect(final.content.map((b) => b.type)).toEqual(['text', 'tool_use', 'tool_use']);
    expect(final.content[1]).toMatchObject({ name: 'get_weather', input: { city: 'Paris' } });
  });

  it('parses the hosted web_search blocks, streamed or not', async () => {
    const request = {
      ...params('capital of France'),
      tools: [{ type: 'web_search_20250305' as const, name: 'web_search' as const }],
    };
    const plain = await anthropic.messages.create(request, script({ hosted: 'web_search' }));
    const streamed = await anthropic.messages
      .stream(request, script({ hosted: 'web_search' }))
      .finalMessage();
    for (const message of [plain, streamed]) {
      expect(message.content.map((b) => b.type)).toEqual([
        'server_tool_use',
        'web_search_tool_result',
        'text',
      ]);
      const [use, result, text] = message.content;
      expect(use).toMatchObject({ name: 'web_search', input: { query: 'capital of France' } });
      expect(result?.type === 'web_search_tool_result' && result.content).toHaveLength(2);
      expect(text?.type === 'text' && text.citations?.[0]).toMatchObject({
        type: 'web_search_result_location',
        url: 'https://example.com/mock-result-1',
      });
      expect(message.usage.server_tool_use).toEqual({ web_search_requests: 1 });
    }
    const { parsed_output: _, ...assembled } = streamed;
    expect(JSON.parse(JSON.stringify(assembled))).toEqual(JSON.parse(JSON.stringify(plain)));
  });

  it('surfaces a scripted error as APIError with its status', async () => {
    for (const [status, kind] of [
      [429, Anthropic.RateLimitError],
      [400, Anthropic.BadRequestError],
      [529, Anthropic.APIError],
    ] as const) {
      const error = await anthropic.messages
        .create(params('x'), script({ error: { status, message: 'nope' } }))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(kind);
      expect(error).toMatchObject({ status });
    }
    const overloaded = await anthropic.messages
      .stream(params('x'), script({ error: { status: 529 } }))
      .finalMessage()
      .catch((e: unknown) => e);
    expect(overloaded).toMatchObject({
      status: 529,
      error: { type: 'error', error: { type: 'overloaded_error' } },
    });
  });

  it('reports a cut stream as an error', async () => {
    await expect(
      anthropic.messages.stream(params('hi'), script({ cut: 3 })).finalMessage(),
    ).rejects.toThrow();
  });
});

describe('MOCK_REQUIRE_KEY', () => {
  it('lets the right key through and answers 401 AuthenticationError otherwise, for both SDKs', async () => {
    const locked = await createMockProvider({ requireKey: 'sk-right' });
    try {
      const client = (apiKey: string) => ({
        openai: new OpenAI({ apiKey, baseURL: `${locked.url}/v1`, maxRetries: 0 }),
        anthropic: new Anthropic({ apiKey, baseURL: locked.url, maxRetries: 0 }),
      });
      const openAIParams = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };
      const anthropicParams = { ...openAIParams, max_tokens: 10 };

      const right = client('sk-right');
      await expect(right.openai.chat.completions.create(openAIParams)).resolves.toBeDefined();
      await expect(right.anthropic.messages.create(anthropicParams)).resolves.toBeDefined();

      const wrong = client('sk-wrong');
      await expect(wrong.openai.chat.completions.create(openAIParams)).rejects.toBeInstanceOf(
        OpenAI.AuthenticationError,
      );
      await expect(wrong.anthropic.messages.create(anthropicParams)).rejects.toBeInstanceOf(
        Anthropic.AuthenticationError,
      );
    } finally {
      await locked.close();
    }
  });
});
