import type { ProviderSurface } from '@toolgate/core';
import {
  invalidUtf8,
  malformedJson,
  pathsOf,
  setAt,
  valueAt,
  wrongValue,
} from '@toolgate/core/testing';
import fc from 'fast-check';
import { type Attempt, GEMINI_STREAM_PATH } from './receipt-stack.ts';

/**
 * Requests for the receipt-evasion property test: valid templates with hostile values planted
 * anywhere (strings with lone surrogates, values of the wrong type, oversized strings), random
 * JSON (lone surrogates in strings and keys), broken JSON and UTF-8, hostile identity headers,
 * and mock-provider scripts that make the provider answer with hostile tool calls, errors and
 * cut streams.
 */

/**
 * Any UTF-16 string, lone surrogates included (JSON text carries them as `\ud800` escapes). A
 * random code point is a surrogate once in 500, so they are also planted on purpose.
 */
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc
    .array(
      fc.oneof(
        fc.string({ maxLength: 6 }),
        fc.constantFrom('\ud800', '\udbff', '\udc00', '\u0000'),
      ),
      {
        minLength: 1,
        maxLength: 6,
      },
    )
    .map((parts) => parts.join('')),
);

const overLimit = fc.constantFrom(257, 300, 2000, 70_000).map((n) => 'a'.repeat(n));

function template(surface: ProviderSurface, stream: boolean): Record<string, unknown> {
  if (surface === 'gemini') {
    // The stream flag is the route's (`:streamGenerateContent`), not the body's.
    return {
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      tools: [
        {
          functionDeclarations: ['search', 'delete_repo'].map((name) => ({
            name,
            parametersJsonSchema: { type: 'object', properties: {} },
          })),
        },
        { googleSearch: {} },
      ],
    };
  }
  if (surface === 'openai-responses') {
    return {
      model: 'gpt-4.1-mini',
      input: [{ role: 'user', content: 'hi' }],
      tools: [
        ...['search', 'delete_repo'].map((name) => ({
          type: 'function',
          name,
          parameters: { type: 'object', properties: {} },
        })),
        { type: 'web_search' },
      ],
      stream,
    };
  }
  const tools =
    surface === 'openai-chat'
      ? ['search', 'delete_repo'].map((name) => ({
          type: 'function',
          function: { name, parameters: { type: 'object', properties: {} } },
        }))
      : ['search', 'delete_repo'].map((name) => ({
          name,
          input_schema: { type: 'object', properties: {} },
        }));
  return {
    model: surface === 'openai-chat' ? 'gpt-4o-mini' : 'claude-sonnet-4-5',
    ...(surface === 'anthropic-messages' ? { max_tokens: 64 } : {}),
    messages: [{ role: 'user', content: 'hi' }],
    tools,
    stream,
  };
}

/** A mock-provider script (in the last user message) for a hostile answer. */
const providerScript = fc.oneof(
  anyText.map((name) => ({ call: name.length > 0 ? name : 'x' })),
  fc
    .array(fc.record({ name: fc.oneof(anyText, overLimit).filter((n) => n.length > 0) }), {
      minLength: 1,
      maxLength: 40,
    })
    .map((calls) => ({ calls })),
  fc
    .record({ key: anyText, value: anyText })
    .map(({ key, value }) => ({ call: 'search', arguments: { [key]: value } })),
  fc
    .record({
      status: fc.constantFrom(400, 401, 429, 500, 529),
      message: fc.oneof(anyText, overLimit),
    })
    .map((error) => ({ error })),
  fc.nat({ max: 8 }).map((cut) => ({ call: 'search', cut })),
  fc.constant({ hosted: 'web_search' }),
);

/** Identity headers: Latin-1 text (what HTTP carries), some past the receipt's limit. */
const identityHeaders = fc.dictionary(
  fc.constantFrom('x-user-id', 'x-service-id', 'x-session-id'),
  fc.oneof(
    fc.string({
      unit: fc
        .oneof(fc.integer({ min: 0x21, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff }))
        .map((c) => String.fromCharCode(c)),
      maxLength: 40,
    }),
    overLimit,
  ),
  { maxKeys: 3 },
);

function bodies(surface: ProviderSurface, stream: boolean): fc.Arbitrary<string | Uint8Array> {
  const base = template(surface, stream);
  const paths = pathsOf(base).filter((p) => p.length > 0);
  const text = JSON.stringify(base);
  const planted = fc
    .constantFrom(...paths)
    .chain((path) =>
      fc
        .oneof(anyText, overLimit, wrongValue(valueAt(base, path)))
        .map((value) => JSON.stringify(setAt(base, path, value))),
    );
  const withScript = providerScript.map((script) =>
    JSON.stringify({ ...base, ...scriptedConversation(surface, JSON.stringify(script)) }),
  );
  const hostileKey = fc
    .record({ key: anyText, value: fc.jsonValue({ maxDepth: 2, stringUnit: 'binary' }) })
    .map(({ key, value }) => JSON.stringify({ ...base, [key]: value }));
  return fc.oneof(
    { weight: 5, arbitrary: planted },
    { weight: 5, arbitrary: withScript },
    { weight: 2, arbitrary: hostileKey },
    {
      weight: 1,
      arbitrary: fc.jsonValue({ stringUnit: 'binary' }).map((v) => JSON.stringify(v) ?? 'null'),
    },
    { weight: 1, arbitrary: malformedJson(text) },
    { weight: 1, arbitrary: invalidUtf8(text) },
  );
}

/**
 * The conversation field of a body whose last user message is a mock-provider script (`mock:
 * {json}`): `input` on the Responses API, `contents` on Gemini, `messages` elsewhere.
 */
export function scriptedConversation(
  surface: ProviderSurface,
  script: string,
): Record<string, unknown> {
  const text = `mock: ${script}`;
  if (surface === 'gemini') return { contents: [{ role: 'user', parts: [{ text }] }] };
  const key = surface === 'openai-responses' ? 'input' : 'messages';
  return { [key]: [{ role: 'user', content: text }] };
}

export function hostileAttempt(): fc.Arbitrary<Attempt> {
  return fc
    .record({
      surface: fc.constantFrom<ProviderSurface>(
        'openai-chat',
        'anthropic-messages',
        'openai-responses',
        'gemini',
      ),
      stream: fc.boolean(),
      headers: identityHeaders,
    })
    .chain(({ surface, stream, headers }) =>
      bodies(surface, stream).map((body) => ({
        surface,
        body,
        headers,
        ...(surface === 'gemini' && stream ? { path: GEMINI_STREAM_PATH } : {}),
      })),
    );
}
