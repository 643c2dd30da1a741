import { ApiError, GoogleGenAI, type Tool } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGeminiPath } from './gemini.ts';
import { createMockProvider, type MockProvider } from './server.ts';

/**
 * The mock's Gemini dialect, read by the official `@google/genai` client pointed at it with only
 * `httpOptions.baseUrl` changed: text, function calls, built-in tool evidence, the SSE stream,
 * errors, and the key (header or `?key=`) it may require.
 */

let mock: MockProvider;
let ai: GoogleGenAI;
const MODEL = 'gemini-2.5-flash';
const say = (script: object) => `mock: ${JSON.stringify(script)}`;
const TOOLS: Tool[] = [
  {
    functionDeclarations: [
      {
        name: 'get_weather',
        parametersJsonSchema: {
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
        },
      },
      { name: 'send_email' },
    ],
  },
  { googleSearch: {} },
];

beforeAll(async () => {
  mock = await createMockProvider();
  ai = new GoogleGenAI({ apiKey: 'AIza-test', httpOptions: { baseUrl: mock.url } });
});
afterAll(() => mock.close());

describe('the Gemini dialect through @google/genai', () => {
  it('answers with the tools it saw, built-ins named by their field', async () => {
    const response = await ai.models.generateContent({
      model: MODEL,
      contents: 'hello',
      config: { tools: TOOLS },
    });
    expect(response.text).toBe('mock: 3 tools: get_weather, send_email, googleSearch');
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    expect(response.modelVersion).toBe(MODEL);
    expect(response.usageMetadata?.totalTokenCount).toBeGreaterThan(0);
    expect(mock.requests.last(1)[0]?.path).toBe(`/v1beta/models/${MODEL}:generateContent`);
  });

  it('calls the first function with arguments from its schema, or any named one', async () => {
    const first = await ai.models.generateContent({
      model: MODEL,
      contents: 'call the first tool',
      config: { tools: TOOLS },
    });
    expect(first.functionCalls).toEqual([{ name: 'get_weather', args: { city: 'city' } }]);
    const named = await ai.models.generateContent({
      model: MODEL,
      contents: say({
        text: 'Sending.',
        calls: [{ name: 'delete_repo', arguments: { repo: 'x' } }],
      }),
    });
    expect(named.text).toBe('Sending.');
    expect(named.functionCalls).toEqual([{ name: 'delete_repo', args: { repo: 'x' } }]);
  });

  it('ends the loop after a function response: no user text, the default answer', async () => {
    const response = await ai.models.generateContent({
      model: MODEL,
      contents: [
        { role: 'user', parts: [{ text: 'call the first tool' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'x' } } }] },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }],
        },
      ],
      config: { tools: TOOLS },
    });
    expect(response.functionCalls).toBeUndefined();
    expect(response.text).toBe('mock: 3 tools: get_weather, send_email, googleSearch');
  });

  it('streams whole chunks: text word by word, each call whole, finishReason last', async () => {
    const stream = await ai.models.generateContentStream({
      model: MODEL,
      contents: say({ text: 'Let me check.', call: 'get_weather', arguments: { city: 'Paris' } }),
      config: { tools: TOOLS },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((c) => c.text ?? null)).toEqual(['Let ', 'me ', 'check.', null]);
    expect(chunks.at(-1)?.functionCalls).toEqual([
      { name: 'get_weather', args: { city: 'Paris' } },
    ]);
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(mock.requests.last(1)[0]?.path).toBe(
      `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`,
    );
  });

  it('reports built-in tools: search grounding, code execution, URL context', async () => {
    const search = await ai.models.generateContent({
      model: MODEL,
      contents: say({ hosted: 'web_search' }),
      config: { tools: TOOLS },
    });
    const grounding = search.candidates?.[0]?.groundingMetadata;
    expect(grounding?.webSearchQueries).toEqual([say({ hosted: 'web_search' })]);
    expect(grounding?.groundingChunks?.map((c) => c.web?.uri)).toEqual([
      'https://example.com/mock-result-1',
      'https://example.com/mock-result-2',
    ]);
    const code = await ai.models.generateContent({
      model: MODEL,
      contents: say({ hosted: 'code_execution' }),
    });
    expect(code.executableCode).toBe('print(6 * 7)');
    expect(code.codeExecutionResult).toBe('42\n');
    const pages = await ai.models.generateContent({
      model: MODEL,
      contents: say({ hosted: 'url_context' }),
    });
    expect(pages.candidates?.[0]?.urlContextMetadata?.urlMetadata).toEqual([
      {
        retrievedUrl: 'https://example.com/mock-page',
        urlRetrievalStatus: 'URL_RETRIEVAL_STATUS_SUCCESS',
      },
    ]);
  });

  it('answers errors in Google’s format, which the SDK raises as ApiError', async () => {
    const error = await ai.models
      .generateContent({
        model: MODEL,
        contents: say({ error: { status: 429, message: 'Quota exceeded' } }),
      })
      .then(
        () => undefined,
        (e: unknown) => e as ApiError,
      );
    expect(error).toBeInstanceOf(ApiError);
    expect(error?.status).toBe(429);
    expect(JSON.parse(error?.message ?? '')).toEqual({
      error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' },
    });
  });

  it('requires its key from x-goog-api-key or ?key=, and logs neither', async () => {
    const strict = await createMockProvider({ requireKey: 'AIza-required' });
    try {
      const body = JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] });
      const post = (query: string, headers: Record<string, string> = {}) =>
        fetch(`${strict.url}/v1beta/models/${MODEL}:generateContent${query}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
        });
      expect((await post('', { 'x-goog-api-key': 'AIza-required' })).status).toBe(200);
      expect((await post('?key=AIza-required')).status).toBe(200);
      const refused = await post('?key=wrong');
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { status: string } }).error.status).toBe(
        'UNAUTHENTICATED',
      );
      expect(JSON.stringify(strict.requests.last())).not.toContain('AIza-required');
    } finally {
      await strict.close();
    }
  });

  it('reads the model and the method from the path', () => {
    expect(readGeminiPath('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse')).toEqual(
      { model: 'gemini-2.5-flash', stream: true },
    );
    expect(readGeminiPath('/v1/models/m:generateContent')).toEqual({ model: 'm', stream: false });
    expect(readGeminiPath('/v1beta/models/m:countTokens')).toBeUndefined();
  });
});
