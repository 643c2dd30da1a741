import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockProvider, type MockProvider } from './server.ts';

const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
  { type: 'function', function: { name: 'send_email', parameters: { type: 'object' } } },
];
const openAIBody = (content = 'hello', extra: object = {}) => ({
  model: 'gpt-mock',
  messages: [{ role: 'user', content }],
  tools,
  ...extra,
});
const anthropicBody = (content = 'hello', extra: object = {}) => ({
  model: 'claude-mock',
  max_tokens: 100,
  messages: [{ role: 'user', content }],
  tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
  ...extra,
});

let mock: MockProvider;

function post(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
) {
  return fetch(`${mock.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal,
  });
}

const script = (value: object) => ({ 'x-mock-script': JSON.stringify(value) });

/** The parts of the answers these tests read. */
interface Answer {
  created: number;
  choices: { message: { content: string | null; tool_calls: { function: object }[] } }[];
  content: unknown[];
  error: { type: string };
  requests: { path: string; body: unknown; headers: Record<string, string> }[];
}
const json = (response: Response) => response.json() as Promise<Answer>;

/** Reads a stream to its end or its cut; returns the SSE events received and whether it was cut. */
async function readEvents(response: Response): Promise<{ events: string[]; cut: boolean }> {
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let cut = false;
  try {
    for (;;) {
      const { done, value } = await (reader as ReadableStreamDefaultReader<Uint8Array>).read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    cut = true;
  }
  return { events: text.split('\n\n').filter(Boolean), cut };
}

beforeAll(async () => {
  mock = await createMockProvider();
});
afterAll(() => mock.close());

describe('mock provider over HTTP', () => {
  it('answers /healthz', async () => {
    const response = await fetch(`${mock.url}/healthz`);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('echoes the tools it saw, the same answer for the same request', async () => {
    const first = await post('/v1/chat/completions', openAIBody());
    const body = await json(first);
    expect(body.choices[0]?.message.content).toBe('mock: 2 tools: get_weather, send_email');
    expect(body.created).toBe(1_700_000_000);
    expect(first.headers.get('x-request-id')).toMatch(/^req_/);
    const again = await json(await post('/v1/chat/completions', openAIBody()));
    expect(again).toEqual(body);

    const anthropic = await post('/v1/messages', anthropicBody());
    expect(anthropic.headers.get('request-id')).toMatch(/^req_/);
    expect((await json(anthropic)).content).toEqual([
      { type: 'text', text: 'mock: 1 tool: get_weather' },
    ]);
  });

  it('calls the first tool when the message asks, with arguments from its schema', async () => {
    const body = await json(
      await post('/v1/chat/completions', openAIBody('Please call the first tool')),
    );
    expect(body.choices[0]?.message.tool_calls[0]?.function).toEqual({
      name: 'get_weather',
      arguments: '{"city":"city"}',
    });
  });

  it('calls an undeclared tool from a mock: message', async () => {
    const body = await json(
      await post(
        '/v1/messages',
        anthropicBody('mock: {"call":"delete_repo","arguments":{"repo":"x"}}'),
      ),
    );
    expect(body.content).toMatchObject([
      { type: 'tool_use', name: 'delete_repo', input: { repo: 'x' } },
    ]);
  });

  it('streams OpenAI chunks as data: lines ending in [DONE]', async () => {
    const response = await post(
      '/v1/chat/completions',
      openAIBody('hi', { stream: true }),
      script({ call: 'first' }),
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    const { events, cut } = await readEvents(response);
    expect(cut).toBe(false);
    expect(events.every((e) => e.startsWith('data: '))).toBe(true);
    expect(events.at(-1)).toBe('data: [DONE]');
  });

  it('streams Anthropic events with event: lines', async () => {
    const { events } = await readEvents(
      await post('/v1/messages', anthropicBody('hi', { stream: true })),
    );
    expect(events[0]).toMatch(/^event: message_start\ndata: \{"type":"message_start"/);
    expect(events[1]).toBe('event: ping\ndata: {"type":"ping"}');
    expect(events.at(-1)).toBe('event: message_stop\ndata: {"type":"message_stop"}');
  });

  it.each([
    [
      '/v1/chat/completions',
      openAIBody(),
      {
        error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' },
      },
    ],
    [
      '/v1/messages',
      anthropicBody(),
      { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
    ],
  ])('answers a scripted error in the provider format (%s)', async (path, body, expected) => {
    const response = await post(
      path,
      body,
      script({ error: { status: 429, message: 'slow down' } }),
    );
    expect(response.status).toBe(429);
    expect(await response.json()).toEqual(expected);
  });

  it.each([
    ['/v1/chat/completions', (r: Answer) => r.error.type, 'invalid_request_error'],
    ['/v1/messages', (r: Answer) => r.error.type, 'invalid_request_error'],
  ])(
    'rejects a malformed request, bad JSON or a bad script with 400 in the provider format (%s)',
    async (path, type, expected) => {
      for (const response of [
        await post(path, { model: 'm' }),
        await post(path, '{"model": '),
        await post(path, path.includes('chat') ? openAIBody() : anthropicBody(), {
          'x-mock-script': '{"bogus":1}',
        }),
      ]) {
        expect(response.status).toBe(400);
        expect(type(await json(response))).toBe(expected);
      }
    },
  );

  it.each([0, 3])('cuts a stream after %i events', async (n) => {
    for (const [path, body] of [
      ['/v1/chat/completions', openAIBody('hi', { stream: true })],
      ['/v1/messages', anthropicBody('hi', { stream: true })],
    ] as const) {
      const response = await post(path, body, script({ cut: n }));
      expect(response.status).toBe(200);
      const { events, cut } = await readEvents(response);
      expect(cut).toBe(true);
      expect(events).toHaveLength(n);
    }
  });

  it('closes the connection without an answer when cutting a non-streaming request', async () => {
    await expect(post('/v1/chat/completions', openAIBody(), script({ cut: 0 }))).rejects.toThrow();
  });

  it('never answers a hanging request', async () => {
    const attempt = post(
      '/v1/messages',
      anthropicBody(),
      script({ hang: true }),
      AbortSignal.timeout(200),
    );
    await expect(attempt).rejects.toThrow(/timeout|abort/i);
  });

  it('waits latencyMs before answering and chunkDelayMs between events', async () => {
    let started = performance.now();
    await json(await post('/v1/chat/completions', openAIBody(), script({ latencyMs: 120 })));
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);

    started = performance.now();
    const response = await post(
      '/v1/chat/completions',
      openAIBody('hi', { stream: true }),
      script({ chunkDelayMs: 20 }),
    );
    const { events } = await readEvents(response);
    expect(performance.now() - started).toBeGreaterThanOrEqual((events.length - 1) * 20 - 10);
  });

  it('survives a client that leaves during the latency', async () => {
    const attempt = post(
      '/v1/messages',
      anthropicBody(),
      script({ latencyMs: 300 }),
      AbortSignal.timeout(50),
    );
    await expect(attempt).rejects.toThrow();
    expect((await fetch(`${mock.url}/healthz`)).status).toBe(200);
  });

  it('records what it received without secrets, bounded and clearable', async () => {
    await fetch(`${mock.url}/__mock/requests`, { method: 'DELETE' });
    await post('/v1/chat/completions', openAIBody('one'), {
      authorization: 'Bearer sk-secret',
      'x-user-id': 'u1',
    });
    await post('/v1/messages', anthropicBody('two'), { 'x-api-key': 'sk-ant-secret' });

    const { requests } = await json(await fetch(`${mock.url}/__mock/requests?limit=2`));
    expect(requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/messages']);
    expect(requests[0]?.body).toEqual(openAIBody('one'));
    expect(requests[0]?.headers).toMatchObject({ authorization: '[redacted]', 'x-user-id': 'u1' });
    expect(requests[1]?.headers['x-api-key']).toBe('[redacted]');
    expect(JSON.stringify(requests)).not.toContain('secret');

    const { requests: last } = await json(await fetch(`${mock.url}/__mock/requests?limit=1`));
    expect(last.map((r) => r.path)).toEqual(['/v1/messages']);
    expect((await fetch(`${mock.url}/__mock/requests?limit=x`)).status).toBe(400);

    expect((await fetch(`${mock.url}/__mock/requests`, { method: 'DELETE' })).status).toBe(204);
    expect(await json(await fetch(`${mock.url}/__mock/requests`))).toEqual({ requests: [] });
  });

  it('refuses a body nested past 100 levels with a 400 in each dialect, as real providers do', async () => {
    const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    const paths = [
      '/v1/chat/completions',
      '/v1/messages',
      '/v1/responses',
      '/v1beta/models/gemini-2.5-flash:generateContent',
    ];
    for (const path of paths) {
      for (const body of [deep(60_000), `{"model":"m","x":${deep(101)}}`]) {
        const response = await post(path, body);
        const text = await response.text();
        expect(response.status, `${path}: ${text.slice(0, 200)}`).toBe(400);
        expect(text).toContain('nests more than 100 levels');
      }
    }
    // 100 levels are a body like any other (here missing what the dialect needs, or not).
    const fine = await post('/v1/chat/completions', { ...openAIBody(), x: JSON.parse(deep(98)) });
    expect(fine.status).toBe(200);
    const { requests } = await json(await fetch(`${mock.url}/__mock/requests?limit=2`));
    expect(requests[0]?.body).toEqual({ refused: 'request body nests more than 100 levels deep' });
  });
});

describe('mock provider options', () => {
  it('applies the server-wide latency, a fixed created and a bounded log', async () => {
    const slow = await createMockProvider({ latencyMs: 100, created: 42, requestLogSize: 2 });
    try {
      const started = performance.now();
      const call = (n: number) =>
        fetch(`${slow.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(openAIBody(`m${n}`)),
        }).then(json);
      const bodies = await Promise.all([1, 2, 3].map(call));
      expect(performance.now() - started).toBeGreaterThanOrEqual(90);
      expect(bodies.map((b) => b.created)).toEqual([42, 42, 42]);
      expect(slow.requests.last()).toHaveLength(2);
    } finally {
      await slow.close();
    }
  });

  it('requires the configured key as a Bearer token or x-api-key, 401 in the provider format otherwise', async () => {
    const locked = await createMockProvider({ requireKey: 'sk-right' });
    const send = (path: string, body: unknown, headers: Record<string, string>) =>
      fetch(`${locked.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    try {
      const none = await send('/v1/chat/completions', openAIBody(), {});
      expect(none.status).toBe(401);
      expect((await json(none)).error).toMatchObject({
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      });
      const wrong = await send('/v1/messages', anthropicBody(), { 'x-api-key': 'sk-wrong' });
      expect(wrong.status).toBe(401);
      expect(await json(wrong)).toMatchObject({
        type: 'error',
        error: { type: 'authentication_error' },
      });

      expect(
        (await send('/v1/chat/completions', openAIBody(), { authorization: 'Bearer sk-right' }))
          .status,
      ).toBe(200);
      expect(
        (await send('/v1/messages', anthropicBody(), { 'x-api-key': 'sk-right' })).status,
      ).toBe(200);
      expect(JSON.stringify(locked.requests.last())).not.toContain('sk-');
    } finally {
      await locked.close();
    }
  });

  it('closes promptly with a request still hanging', async () => {
    const other = await createMockProvider();
    const hanging = fetch(`${other.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...script({ hang: true }) },
      body: JSON.stringify(anthropicBody()),
    }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    await other.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await hanging).toBeInstanceOf(Error);
  });
});
