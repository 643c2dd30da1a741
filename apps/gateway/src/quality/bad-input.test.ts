import type { ProviderSurface } from '@toolgate/core';
import {
  deepArray,
  deepObject,
  invalidUtf8,
  malformedJson,
  NON_JSON_CONTENT_TYPES,
  pathsOf,
  readableFailure,
  setAt,
  valueAt,
  wrongValue,
} from '@toolgate/core/testing';
import fc from 'fast-check';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../../../../scripts/reliability/figures.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * Whatever an agent sends to either provider endpoint, the gateway answers in that provider's
 * error format with a 4xx it can act on (or forwards a request the provider then judges), never
 * a 5xx, a crash or a hang; and it writes a receipt exactly when it forwarded the request —
 * never for one it refused, never two. Generated bodies: malformed JSON, wrong types at every
 * field of a valid request, huge arrays, deep nesting, invalid UTF-8, oversized bodies, hostile
 * tool names and schemas, odd content types.
 */

const SOURCE = 'apps/gateway/src/quality/bad-input.test.ts';
/** Small, so bodies past the limit are cheap to send; the mechanism is the same at 16 MiB. */
const BODY_LIMIT = 128 * 1024;
const RUNS = 150;
const REQUEST_TIMEOUT_MS = 15_000;

const ENDPOINTS: Record<ProviderSurface, string> = {
  'openai-chat': '/v1/chat/completions',
  'anthropic-messages': '/v1/messages',
  gemini: '/v1beta/models/gemini-2.5-flash:generateContent',
  'openai-responses': '/v1/responses',
};

/** Hide, tighten, replace and rename: every mediation path sees the generated tools. */
const POLICIES = [
  {
    name: 'fuzz',
    spec: {
      rules: [
        { id: 'hide-deletes', action: 'hide' as const, match: { name: 'delete_*' } },
        {
          id: 'tighten-search',
          action: 'augment' as const,
          match: { name: 'search' },
          description_append: 'Read only.',
          parameters: { type: 'object', additionalProperties: false },
        },
        {
          id: 'swap-fetch',
          action: 'replace' as const,
          match: { name: 'fetch' },
          tool: { name: 'fetch', description: 'Vetted fetch', parameters: { type: 'object' } },
        },
        {
          id: 'alias-mcp',
          action: 'rename' as const,
          match: { name: 'github/*' },
          alias: 'github_tool',
        },
      ],
    },
  },
];

let gw: TestGateway;
let tried = 0;
let serverErrors = 0;
const statuses = new Map<string, number>();

beforeAll(async () => {
  gw = await startTestGateway({ bodyLimit: BODY_LIMIT });
  await gw.applyPolicies(POLICIES);
});
afterAll(async () => {
  recordFigures({ source: SOURCE, badInputs: { tried, serverErrors } });
  await gw?.close();
});

// --- what to send ------------------------------------------------------------------------------

const openAITool = (name: string, parameters: unknown = { type: 'object', properties: {} }) => ({
  type: 'function',
  function: { name, description: `${name} tool`, parameters },
});
const anthropicTool = (name: string, schema: unknown = { type: 'object', properties: {} }) => ({
  name,
  description: `${name} tool`,
  input_schema: schema,
});
const responsesTool = (name: string, parameters: unknown = { type: 'object', properties: {} }) => ({
  type: 'function',
  name,
  description: `${name} tool`,
  parameters,
  strict: false,
});

const geminiDeclaration = (name: string, schema: unknown = { type: 'object', properties: {} }) => ({
  name,
  description: `${name} tool`,
  parametersJsonSchema: schema,
});
/** A tool as declared on `surface`: Gemini's go in a `functionDeclarations` entry. */
function toolFor(surface: ProviderSurface, name: string, schema?: unknown): unknown {
  if (surface === 'openai-chat') return openAITool(name, schema);
  if (surface === 'gemini') return { functionDeclarations: [geminiDeclaration(name, schema)] };
  if (surface === 'openai-responses') return responsesTool(name, schema);
  return anthropicTool(name, schema);
}

function template(surface: ProviderSurface): Record<string, unknown> {
  const names = ['search', 'delete_repo', 'fetch', 'github/create_issue'];
  if (surface === 'gemini') {
    return {
      contents: [{ role: 'user', parts: [{ text: 'Find the retry settings.' }] }],
      tools: [
        { functionDeclarations: names.map((name) => geminiDeclaration(name)) },
        { googleSearch: {} },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: names } },
    };
  }
  if (surface === 'openai-responses') {
    return {
      model: 'gpt-4.1-mini',
      instructions: 'Be brief.',
      input: [
        { role: 'user', content: 'Find the retry settings.' },
        { type: 'function_call', call_id: 'call_1', name: 'search', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'none found' },
      ],
      tools: [...names.map((name) => responsesTool(name)), { type: 'web_search' }],
      tool_choice: 'auto',
    };
  }
  return surface === 'openai-chat'
    ? {
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Find the retry settings.' }],
        tools: names.map((name) => openAITool(name)),
        tool_choice: 'auto',
      }
    : {
        model: 'claude-sonnet-4-5',
        max_tokens: 256,
        messages: [{ role: 'user', content: 'Find the retry settings.' }],
        tools: names.map((name) => anthropicTool(name)),
      };
}

interface Attempt {
  bytes: string | Uint8Array;
  contentType?: string;
}

const json = (value: unknown): Attempt => ({
  bytes: JSON.stringify(value) ?? 'null',
  contentType: 'application/json',
});

/** A value of another JSON type than `original`, or an empty one of the same. */
function wrongOrEmpty(original: unknown): fc.Arbitrary<unknown> {
  return fc.oneof(wrongValue(original), fc.constant(typeof original === 'string' ? '' : []));
}

const hostileName = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'a'.repeat(65),
    'a'.repeat(5000),
    'github/../../etc/passwd',
    'server/tool/with/slashes',
    'delete_repo',
    'DELETE_REPO',
    'search\u0000',
    'tool\nname',
    '😀🔥',
    'Robert"); DROP TABLE receipts;--',
    `\${process.env}`,
    '{{7*7}}',
    '*',
    '.*',
  ),
);

const hostileSchema = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom<unknown>(
    'object',
    [],
    null,
    { type: 'object', properties: { __proto__: { type: 'string' } } },
    { type: 'object', properties: { constructor: { prototype: { polluted: true } } } },
    { $ref: '#' },
    { $ref: '#/definitions/a', definitions: { a: { $ref: '#/definitions/a' } } },
    { type: 'object', required: 'not-an-array' },
    { type: 'object', enum: new Array(2000).fill('v') },
    { allOf: new Array(200).fill({ type: 'object' }) },
  ),
  fc.constantFrom(50, 300, 1000).map((depth) => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { a: schema } };
    return schema;
  }),
);

/** Tools an attacker might declare: hostile names, hostile schemas, duplicates, lots of them. */
function hostileTools(surface: ProviderSurface): fc.Arbitrary<Attempt> {
  const tool = fc
    .record({ name: hostileName, schema: hostileSchema })
    .map(({ name, schema }) => toolFor(surface, name, schema));
  const base = template(surface);
  return fc.oneof(
    fc
      .array(tool, { minLength: 1, maxLength: 8 })
      .map((tools) => json({ ...base, tools: [...(base.tools as unknown[]), ...tools] })),
    fc
      .record({ name: hostileName, copies: fc.constantFrom(2, 50) })
      .map(({ name, copies }) =>
        json({ ...base, tools: new Array(copies).fill(toolFor(surface, name)) }),
      ),
    fc.constantFrom(500, 3000).map((count) =>
      json({
        ...base,
        tools: Array.from({ length: count }, (_, i) => toolFor(surface, `t${i}`)),
      }),
    ),
    hostileName.map((name) =>
      surface === 'gemini'
        ? json({
            ...base,
            toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [name] } },
          })
        : json({ ...base, tool_choice: { type: 'function', function: { name } } }),
    ),
  );
}

function bodyArbitrary(surface: ProviderSurface): fc.Arbitrary<Attempt> {
  const base = template(surface);
  const paths = pathsOf(base);
  const objectPaths = paths.filter((p) => {
    const value = valueAt(base, p);
    return value !== null && typeof value === 'object';
  });
  const text = JSON.stringify(base);
  return fc.oneof(
    { weight: 2, arbitrary: fc.jsonValue().map(json) },
    {
      weight: 6,
      arbitrary: fc
        .constantFrom(...paths)
        .chain((path) =>
          wrongOrEmpty(valueAt(base, path)).map((value) => json(setAt(base, path, value))),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({ key: fc.string({ minLength: 1, maxLength: 10 }), value: fc.jsonValue() })
        .map(({ key, value }) => json({ ...base, [key]: value })),
    },
    { weight: 1, arbitrary: fc.boolean().map((stream) => json({ ...base, stream })) },
    { weight: 5, arbitrary: hostileTools(surface) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(BODY_LIMIT - 4096, BODY_LIMIT + 1, BODY_LIMIT * 3).chain((size) =>
        fc.constantFrom(
          json({ ...base, messages: [{ role: 'user', content: 'x'.repeat(size) }] }),
          json({
            ...base,
            messages: new Array(Math.floor(size / 40)).fill({ role: 'user', content: 'hi' }),
          }),
          json(new Array(Math.floor(size / 2)).fill(0)),
        ),
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({
          path: fc.constantFrom(...objectPaths),
          depth: fc.constantFrom(100, 1000, 10_000, 60_000),
          array: fc.boolean(),
        })
        .map(({ path, depth, array }) => ({
          bytes: JSON.stringify(setAt(base, path, '__deep__')).replace(
            '"__deep__"',
            array ? deepArray(depth) : deepObject(depth),
          ),
          contentType: 'application/json',
        })),
    },
    {
      weight: 2,
      arbitrary: invalidUtf8(text).map((bytes) => ({ bytes, contentType: 'application/json' })),
    },
    {
      weight: 2,
      arbitrary: malformedJson(text).map((bytes) => ({ bytes, contentType: 'application/json' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('', ...NON_JSON_CONTENT_TYPES)
        .map((contentType) => ({ bytes: text, contentType })),
    },
  );
}

// --- how to judge the answer -------------------------------------------------------------------

function spoolDepth(): number {
  return gw.spool.stats().depth;
}

function upstreamSeq(): number {
  return gw.mock.requests.last(1)[0]?.seq ?? 0;
}

/** The provider's error shape for `surface`, with a message a person can act on. */
function errorMessage(surface: ProviderSurface, body: unknown): string | undefined {
  if (surface === 'gemini') {
    // Google's `{error: {code, message, status}}`, the code the HTTP status.
    const error = (body as { error?: { code?: unknown; message?: unknown; status?: unknown } })
      ?.error;
    const wellFormed =
      typeof error?.code === 'number' &&
      typeof error.status === 'string' &&
      typeof error.message === 'string';
    return wellFormed ? (error.message as string) : undefined;
  }
  const error =
    surface === 'anthropic-messages'
      ? (body as { type?: unknown; error?: { type?: unknown; message?: unknown } })?.type ===
        'error'
        ? (body as { error?: { type?: unknown; message?: unknown } }).error
        : undefined
      : (body as { error?: { type?: unknown; message?: unknown } })?.error;
  if (!error || typeof error.type !== 'string' || typeof error.message !== 'string') return;
  return error.message;
}

async function judge(surface: ProviderSurface, attempt: Attempt): Promise<void> {
  const depthBefore = spoolDepth();
  const seqBefore = upstreamSeq();
  const headers: Record<string, string> = { authorization: 'Bearer sk-fuzz' };
  if (attempt.contentType) headers['content-type'] = attempt.contentType;
  const response = await fetch(gw.url + ENDPOINTS[surface], {
    method: 'POST',
    headers,
    body: attempt.bytes,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  tried++;
  const key = `${surface} ${response.status}`;
  statuses.set(key, (statuses.get(key) ?? 0) + 1);
  if (response.status >= 500) serverErrors++;
  expect(response.status, text.slice(0, 500)).toBeLessThan(500);

  const reachedProvider = upstreamSeq() - seqBefore;
  const written = spoolDepth() - depthBefore;
  const receiptId = response.headers.get('x-toolgate-receipt-id');
  // Exactly one receipt for a request the gateway forwarded (whatever the provider made of it),
  // none for one it refused itself — and a refused request never reaches the provider.
  expect(written, `receipts written (HTTP ${response.status})`).toBe(receiptId ? 1 : 0);
  expect(reachedProvider, 'provider requests').toBeLessThanOrEqual(written);
  if (receiptId) expect(receiptId).toMatch(/^rcpt_/);
  if (response.status >= 400) {
    const message = errorMessage(surface, JSON.parse(text));
    expect(message, text.slice(0, 500)).toBeTruthy();
    expect(message).not.toMatch(/\n\s+at |\.ts:\d+|node_modules/);
  } else {
    expect(reachedProvider).toBe(1);
  }
}

function describeAttempt(attempt: Attempt): string {
  const bytes =
    typeof attempt.bytes === 'string'
      ? attempt.bytes.slice(0, 300)
      : `<${attempt.bytes.length} bytes>`;
  return JSON.stringify({ ...attempt, bytes });
}

const failureReporter = readableFailure(describeAttempt);

describe('random input never breaks the gateway', () => {
  it.each(Object.keys(ENDPOINTS) as ProviderSurface[])('%s', async (surface) => {
    await fc.assert(
      fc.asyncProperty(bodyArbitrary(surface), (attempt) => judge(surface, attempt)),
      { numRuns: RUNS, endOnFailure: true, reporter: failureReporter },
    );
  });

  it('refuses invalid UTF-8, oversized and malformed bodies itself, naming the problem', async () => {
    const valid = JSON.stringify(template('openai-chat'));
    const cases: Array<{ attempt: Attempt; status: number; says: RegExp }> = [
      {
        attempt: {
          bytes: new Uint8Array(
            Buffer.concat([Buffer.from('{"model":"'), Buffer.from([0xff]), Buffer.from('"}')]),
          ),
          contentType: 'application/json',
        },
        status: 400,
        says: /UTF-8/,
      },
      {
        attempt: {
          bytes: `{"model":"${'x'.repeat(BODY_LIMIT)}"}`,
          contentType: 'application/json',
        },
        status: 413,
        says: /too large/,
      },
      {
        attempt: { bytes: '{"model":', contentType: 'application/json' },
        status: 400,
        says: /JSON/,
      },
      {
        attempt: { bytes: valid.slice(0, -1), contentType: 'text/plain' },
        status: 400,
        says: /JSON/,
      },
    ];
    for (const surface of Object.keys(ENDPOINTS) as ProviderSurface[]) {
      for (const { attempt, status, says } of cases) {
        const seq = upstreamSeq();
        const response = await fetch(gw.url + ENDPOINTS[surface], {
          method: 'POST',
          headers: attempt.contentType ? { 'content-type': attempt.contentType } : {},
          body: attempt.bytes,
        });
        const body = await response.json();
        expect(response.status, describeAttempt(attempt)).toBe(status);
        expect(errorMessage(surface, body), describeAttempt(attempt)).toMatch(says);
        expect(upstreamSeq()).toBe(seq);
        tried++;
      }
    }
  });

  it('answers a body nested tens of thousands of levels deep with a 4xx, wherever the nesting is', async () => {
    // The gateway walks the fields it mediates and passes the others on untouched: a deep value
    // at the root or under a field it does not read reaches the provider (which refuses it, as
    // real providers do), one in a field it reads is refused by the gateway. Either way a 4xx,
    // and a receipt exactly when the request was forwarded (judge checks both).
    for (const surface of Object.keys(ENDPOINTS) as ProviderSurface[]) {
      const valid = JSON.stringify(template(surface));
      for (const depth of [10_000, 60_000]) {
        for (const deep of [deepObject(depth), deepArray(depth)]) {
          for (const bytes of [deep, `${valid.slice(0, -1)},"x_unknown":${deep}}`]) {
            await judge(surface, { bytes, contentType: 'application/json' });
          }
        }
      }
    }
  });

  it('still works afterwards, for a real SDK', async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-after', maxRetries: 0 });
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [openAITool('search'), openAITool('delete_repo')] as never,
    });
    expect(completion.choices[0]?.message.content).toBe('mock: 1 tool: search');
    expect((await fetch(`${gw.url}/readyz`)).status).toBe(200);
    // The fuzz must have reached the provider and been refused by the gateway, or it proved little.
    const counts = Object.fromEntries(statuses);
    console.info(`gateway fuzz answers: ${JSON.stringify(counts)}`);
    for (const surface of Object.keys(ENDPOINTS)) {
      expect(statuses.get(`${surface} 200`) ?? 0, surface).toBeGreaterThan(0);
      expect(statuses.get(`${surface} 400`) ?? 0, surface).toBeGreaterThan(0);
    }
  });
});
