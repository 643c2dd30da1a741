import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fakeContext } from '../response/fake-response-context.ts';
import { enforceOpenAIResponse } from '../response/openai-response.ts';
import type { ResponseContext } from '../response/response-context.ts';
import { certainlyNoWork, createOpenAIStreamMediator, needsWork } from './openai-stream.ts';
import { createSseParser } from './sse.ts';

// --- fixtures shaped like real `stream: true, stream_options: {include_usage: true}` output ---
const META = {
  id: 'chatcmpl-BxQ3nWm9Zk1aZ2',
  object: 'chat.completion.chunk',
  created: 1735689600,
  model: 'gpt-4o-2024-08-06',
  service_tier: 'default',
  system_fingerprint: 'fp_f33640a400',
};
type Json = Record<string, unknown>;
const chunk = (delta: Json, finish: string | null = null, index = 0): Json => ({
  ...META,
  choices: [{ index, delta, logprobs: null, finish_reason: finish }],
  usage: null,
});
const usageChunk: Json = {
  ...META,
  choices: [],
  usage: { prompt_tokens: 82, completion_tokens: 61, total_tokens: 143 },
};
const first = (index: number, id: string, name: string) => ({
  tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }],
});
const args = (index: number, piece: string) => ({
  tool_calls: [{ index, function: { arguments: piece } }],
});
const sse = (chunks: Json[]) =>
  `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;

const BLOCKED = {
  name: 'exfil_zq_tool',
  id: 'call_BLK_x9q7',
  pieces: ['{"qz_payload', '":"zebra-', 'quasar-', 'nebula"}'],
};
const LEAKS = [BLOCKED.name, BLOCKED.id, 'qz_payload', 'zebra-', 'quasar-', 'nebula'];
const CONTEXT = { rename: { mcp__weather__get: 'weather/get' }, blocked: [BLOCKED.name] };

/** Text, then a renamed call, a blocked call and a plain call, finish, usage, [DONE]. */
const MIXED_CHUNKS: Json[] = [
  chunk({ role: 'assistant', content: '', refusal: null }),
  chunk({ content: 'Checking the weather ' }),
  chunk({ content: 'now.' }),
  chunk(first(0, 'call_wthr_01', 'mcp__weather__get')),
  chunk(args(0, '{"ci')),
  chunk(args(0, 'ty":"Par')),
  chunk(args(0, 'is"}')),
  chunk(first(1, BLOCKED.id, BLOCKED.name)),
  ...BLOCKED.pieces.map((p) => chunk(args(1, p))),
  chunk(first(2, 'call_time_02', 'get_time')),
  chunk(args(2, '{"tz":')),
  chunk(args(2, '"CET"}')),
  chunk({}, 'tool_calls'),
  usageChunk,
];
const MIXED = sse(MIXED_CHUNKS);

/** A tool-only answer whose only call is blocked: the first chunk carries role and the call. */
const ONLY_BLOCKED = sse([
  chunk({
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        index: 0,
        id: BLOCKED.id,
        type: 'function',
        function: { name: BLOCKED.name, arguments: '' },
      },
    ],
    refusal: null,
  }),
  ...BLOCKED.pieces.map((p) => chunk(args(0, p))),
  chunk({}, 'tool_calls'),
  usageChunk,
]);

/** The non-streaming body equivalent to MIXED. */
const MIXED_BODY = {
  ...META,
  object: 'chat.completion',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'Checking the weather now.',
        refusal: null,
        tool_calls: [
          {
            id: 'call_wthr_01',
            type: 'function',
            function: { name: 'mcp__weather__get', arguments: '{"city":"Paris"}' },
          },
          {
            id: BLOCKED.id,
            type: 'function',
            function: { name: BLOCKED.name, arguments: BLOCKED.pieces.join('') },
          },
          {
            id: 'call_time_02',
            type: 'function',
            function: { name: 'get_time', arguments: '{"tz":"CET"}' },
          },
        ],
      },
      logprobs: null,
      finish_reason: 'tool_calls',
    },
  ],
  usage: usageChunk.usage,
};

// --- helpers ---
function feedAll(ctx: ResponseContext, pieces: Array<string | Uint8Array>) {
  const mediator = createOpenAIStreamMediator(ctx);
  const outputs = pieces.map((p) => mediator.push(p));
  outputs.push(mediator.end());
  return { output: outputs.join(''), outputs, evidence: mediator.evidence() };
}

/** Upstream SSE split into its events (each ending with its blank line). */
function eventsOf(stream: string): string[] {
  return stream.split(/(?<=\n\n)/);
}

function dataOf(output: string): Array<Json | string> {
  const parser = createSseParser();
  return [...parser.push(output), ...parser.end()].map((e) =>
    e.data.startsWith('[DONE]') ? e.data : (JSON.parse(e.data) as Json),
  );
}

/** Accumulates a stream the way the openai SDK's ChatCompletionStream does. */
function accumulate(output: string) {
  const choices: Json[] = [];
  for (const data of dataOf(output)) {
    if (typeof data === 'string') break;
    for (const choice of data.choices as Json[]) {
      const index = choice.index as number;
      choices[index] ??= { index, message: {}, finish_reason: null };
      const snapshot = choices[index];
      const message = snapshot.message as Json;
      if (choice.finish_reason) snapshot.finish_reason = choice.finish_reason;
      const delta = choice.delta as Json;
      if (delta.role) message.role = delta.role;
      if (delta.content != null) message.content = `${message.content ?? ''}${delta.content}`;
      if (delta.refusal != null) message.refusal = `${message.refusal ?? ''}${delta.refusal}`;
      for (const fragment of (delta.tool_calls ?? []) as Json[]) {
        message.tool_calls ??= [];
        const calls = message.tool_calls as Json[];
        calls[fragment.index as number] ??= {};
        const call = calls[fragment.index as number] as Json;
        const fn = fragment.function as Json | undefined;
        if (fragment.id) call.id = fragment.id;
        if (fragment.type) call.type = fragment.type;
        if (fn) call.function ??= { name: fn.name ?? '', arguments: '' };
        if (fn?.name) (call.function as Json).name = fn.name;
        if (fn?.arguments) (call.function as Json).arguments += fn.arguments as string;
      }
    }
  }
  for (const choice of choices) {
    const calls = (choice.message as Json).tool_calls as Json[] | undefined;
    // The SDK's accumulator breaks on holes: indices must be contiguous from 0.
    if (calls) expect(Object.keys(calls).length).toBe(calls.length);
  }
  return choices;
}

function randomPieces(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts)].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const point of points) {
    pieces.push(bytes.subarray(from, point));
    from = point;
  }
  pieces.push(bytes.subarray(from));
  return pieces;
}

describe('createOpenAIStreamMediator', () => {
  it('passes text through in the push that completed it, and holds tool fragments', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const { outputs } = feedAll(ctx, eventsOf(MIXED));
    expect(outputs[0]).toContain('"role":"assistant"');
    expect(outputs[1]).toContain('Checking the weather ');
    expect(outputs[2]).toContain('now.');
    // Call 0 fragments (events 3..6) are all held; event 7 (index 1 appears) releases call 0.
    for (const held of outputs.slice(3, 7)) expect(held).toBe('');
    expect(outputs[7]).toContain('weather/get');
    expect(outputs[7]).toContain(JSON.stringify('{"city":"Paris"}'));
  });

  it('emits text as soon as the bytes of its chunk are complete, even split mid-line', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const mediator = createOpenAIStreamMediator(ctx);
    const text = `data: ${JSON.stringify(chunk({ content: 'héllo 🌍' }))}\n\n`;
    const bytes = new TextEncoder().encode(text);
    const cut = bytes.indexOf(0xf0) + 2; // inside the 4-byte emoji
    expect(mediator.push(bytes.subarray(0, cut))).toBe('');
    expect(mediator.push(bytes.subarray(cut))).toContain('héllo 🌍');
  });

  it('never leaks any fragment of a blocked call, at any point', () => {
    for (const stream of [MIXED, ONLY_BLOCKED]) {
      const { ctx } = fakeContext('openai-chat', CONTEXT);
      const { outputs } = feedAll(ctx, eventsOf(stream));
      for (const output of outputs) for (const leak of LEAKS) expect(output).not.toContain(leak);
    }
  });

  it('renames calls back and renumbers tool indices contiguously', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const { output } = feedAll(ctx, [MIXED]);
    const toolDeltas = dataOf(output)
      .filter((d): d is Json => typeof d !== 'string')
      .flatMap((d) =>
        (d.choices as Json[]).flatMap((c) => ((c.delta as Json).tool_calls ?? []) as Json[]),
      );
    expect(toolDeltas).toEqual([
      {
        index: 0,
        id: 'call_wthr_01',
        type: 'function',
        function: { name: 'weather/get', arguments: '{"city":"Paris"}' },
      },
      {
        index: 1,
        id: 'call_time_02',
        type: 'function',
        function: { name: 'get_time', arguments: '{"tz":"CET"}' },
      },
    ]);
  });

  it('synthesizes released chunks with the upstream chunk metadata', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const { outputs } = feedAll(ctx, eventsOf(MIXED));
    const released = dataOf(outputs[7] as string)[0] as Json;
    expect(released).toMatchObject(META);
    expect(released.choices).toEqual([
      {
        index: 0,
        delta: { tool_calls: [expect.objectContaining({ index: 0, id: 'call_wthr_01' })] },
        logprobs: null,
        finish_reason: null,
      },
    ]);
  });

  it('releases pending calls before the finish chunk, then usage and [DONE] in order', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const data = dataOf(feedAll(ctx, [MIXED]).output);
    const tail = data.slice(-4);
    expect(((tail[0] as Json).choices as Json[])[0]).toMatchObject({
      delta: { tool_calls: [{ index: 1, id: 'call_time_02' }] },
    });
    expect(((tail[1] as Json).choices as Json[])[0]).toMatchObject({ finish_reason: 'tool_calls' });
    expect(tail[2]).toEqual(usageChunk);
    expect(tail[3]).toBe('[DONE]');
  });

  it('passes text-only chunks through byte for byte', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const events = eventsOf(MIXED);
    const { outputs } = feedAll(ctx, events);
    for (const i of [0, 1, 2]) expect(outputs[i]).toBe(events[i]);
    expect(outputs.at(-2)).toBe('data: [DONE]\n\n');
  });

  it('rewrites finish_reason to stop when every call is blocked', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const { output, evidence } = feedAll(ctx, [ONLY_BLOCKED]);
    const choices = accumulate(output);
    expect(choices).toEqual([{ index: 0, message: { role: 'assistant' }, finish_reason: 'stop' }]);
    expect(evidence.finish_reason).toBe('tool_calls->stop');
    expect(evidence.tool_calls).toEqual([
      expect.objectContaining({ id: BLOCKED.id, policy_state: 'blocked' }),
    ]);
  });

  it('records evidence for every call, decided on the complete arguments', () => {
    const { ctx, calls } = fakeContext('openai-chat', CONTEXT);
    const { evidence } = feedAll(ctx, [MIXED]);
    expect(calls).toEqual([
      { id: 'call_wthr_01', providerName: 'mcp__weather__get', rawArguments: '{"city":"Paris"}' },
      { id: BLOCKED.id, providerName: BLOCKED.name, rawArguments: BLOCKED.pieces.join('') },
      { id: 'call_time_02', providerName: 'get_time', rawArguments: '{"tz":"CET"}' },
    ]);
    expect(evidence.tool_calls.map((e) => [e.name, e.policy_state])).toEqual([
      ['weather/get', 'allowed'],
      [BLOCKED.name, 'blocked'],
      ['get_time', 'allowed'],
    ]);
  });

  it('reassembles to what enforceOpenAIResponse makes of the equivalent body', () => {
    for (const options of [CONTEXT, { blocked: ['get_time', BLOCKED.name, 'weather/get'] }, {}]) {
      const { ctx } = fakeContext('openai-chat', options);
      const streamed = accumulate(feedAll(ctx, [MIXED]).output)[0] as Json;
      const enforced = (
        enforceOpenAIResponse(MIXED_BODY, fakeContext('openai-chat', options).ctx)
          .body as typeof MIXED_BODY
      ).choices[0] as Json;
      const message = enforced.message as Json;
      expect(streamed.finish_reason).toBe(enforced.finish_reason);
      expect((streamed.message as Json).content).toBe(message.content);
      expect((streamed.message as Json).tool_calls).toEqual(message.tool_calls);
    }
  });

  it('yields the same output and evidence for any split of the input bytes', () => {
    const fixtures = [MIXED, ONLY_BLOCKED].map((s) => new TextEncoder().encode(s));
    const whole = fixtures.map((bytes) =>
      feedAll(fakeContext('openai-chat', CONTEXT).ctx, [bytes]),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: fixtures.length - 1 }),
        fc.array(fc.integer({ min: 0, max: 4000 }), { maxLength: 60 }),
        (which, cuts) => {
          const bytes = fixtures[which] as Uint8Array;
          const pieces = randomPieces(
            bytes,
            cuts.map((c) => c % (bytes.length + 1)),
          );
          const result = feedAll(fakeContext('openai-chat', CONTEXT).ctx, pieces);
          expect(result.output).toBe(whole[which]?.output);
          expect(result.evidence).toEqual(whole[which]?.evidence);
          for (const leak of LEAKS) expect(result.output).not.toContain(leak);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('emits the text part of a chunk that also carries a tool fragment at once', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const mediator = createOpenAIStreamMediator(ctx);
    const mixed = chunk({ content: 'Let me look.', ...first(0, BLOCKED.id, BLOCKED.name) });
    const out = mediator.push(`data: ${JSON.stringify(mixed)}\n\n`);
    expect(dataOf(out)).toEqual([chunk({ content: 'Let me look.' })]);
    for (const leak of LEAKS) expect(out).not.toContain(leak);
  });

  it('releases pending calls at [DONE] or end() when no finish_reason came', () => {
    for (const tail of ['data: [DONE]\n\n', '']) {
      const { ctx } = fakeContext('openai-chat', CONTEXT);
      const body = `data: ${JSON.stringify(chunk(first(0, 'call_a', 'get_time')))}\n\ndata: ${JSON.stringify(chunk(args(0, '{}')))}\n\n${tail}`;
      const { output } = feedAll(ctx, [body]);
      const calls = (accumulate(output)[0]?.message as Json | undefined)?.tool_calls;
      expect(calls).toEqual([
        { id: 'call_a', type: 'function', function: { name: 'get_time', arguments: '{}' } },
      ]);
      if (tail) expect(output.endsWith('data: [DONE]\n\n')).toBe(true);
    }
  });

  it('mediates each choice of an n=2 stream separately', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const stream = sse([
      chunk({ role: 'assistant', content: null }, null, 0),
      chunk({ role: 'assistant', content: null }, null, 1),
      chunk(first(0, BLOCKED.id, BLOCKED.name), null, 0),
      chunk(first(0, 'call_b0', 'get_time'), null, 1),
      chunk(args(0, '{}'), null, 1),
      chunk(args(0, BLOCKED.pieces[0] as string), null, 0),
      chunk(first(1, 'call_a1', 'mcp__weather__get'), null, 0),
      chunk({}, 'tool_calls', 1),
      chunk({}, 'tool_calls', 0),
    ]);
    const { output } = feedAll(ctx, [stream]);
    const choices = accumulate(output);
    expect(choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: { tool_calls: [{ id: 'call_a1', function: { name: 'weather/get' } }] },
    });
    expect(choices[1]).toMatchObject({
      finish_reason: 'tool_calls',
      message: { tool_calls: [{ id: 'call_b0', function: { name: 'get_time' } }] },
    });
    for (const leak of LEAKS) expect(output).not.toContain(leak);
  });

  it('drops late fragments of a call that was already decided', () => {
    const { ctx, calls } = fakeContext('openai-chat', CONTEXT);
    const stream = sse([
      chunk(first(0, 'call_a', 'get_time')),
      chunk(first(1, BLOCKED.id, BLOCKED.name)),
      chunk(args(1, BLOCKED.pieces[0] as string)),
      chunk(args(0, '{"late":"zebra-quasar"}')),
      chunk({}, 'tool_calls'),
    ]);
    const { output } = feedAll(ctx, [stream]);
    expect(calls.map((c) => c.rawArguments)).toEqual(['', BLOCKED.pieces[0]]);
    expect(output).not.toContain('zebra');
  });

  it('holds and judges custom tool calls and legacy function_call deltas', () => {
    const { ctx } = fakeContext('openai-chat', { rename: { p_sql: 'sql' }, blocked: ['shell'] });
    const stream = sse([
      chunk({
        role: 'assistant',
        content: null,
        tool_calls: [
          { index: 0, id: 'c0', type: 'custom', custom: { name: 'p_sql', input: 'SELECT ' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, custom: { input: '1' } }] }),
      chunk({
        tool_calls: [
          { index: 1, id: 'c1', type: 'custom', custom: { name: 'shell', input: 'rm -rf /zq' } },
        ],
      }),
      chunk({}, 'tool_calls'),
    ]);
    const { output } = feedAll(ctx, [stream]);
    expect(output).toContain(
      JSON.stringify({
        index: 0,
        id: 'c0',
        type: 'custom',
        custom: { name: 'sql', input: 'SELECT 1' },
      }),
    );
    expect(output).not.toContain('rm -rf');

    const legacy = sse([
      chunk({ role: 'assistant', content: null, function_call: { name: 'shell', arguments: '' } }),
      chunk({ function_call: { arguments: '{"cmd":"rm -rf /zq"}' } }),
      chunk({}, 'function_call'),
    ]);
    const result = feedAll(fakeContext('openai-chat', { blocked: ['shell'] }).ctx, [legacy]);
    expect(result.output).not.toContain('shell');
    expect(result.output).not.toContain('rm -rf');
    expect(result.evidence.finish_reason).toBe('function_call->stop');
    const allowed = feedAll(fakeContext('openai-chat', { rename: { shell: 'sh' } }).ctx, [
      legacy,
    ]).output;
    expect(accumulate(allowed)[0]).toMatchObject({ finish_reason: 'function_call' });
    expect(allowed).toContain(
      JSON.stringify({ function_call: { name: 'sh', arguments: '{"cmd":"rm -rf /zq"}' } }),
    );
  });

  it('passes comments, errors, malformed JSON and unknown events through in order', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const stream =
      ': OPENROUTER PROCESSING\n\n' +
      `data: ${JSON.stringify(chunk({ content: 'a' }))}\n\n` +
      'data: {not json\n\n' +
      'event: custom\ndata: {"x":1}\n\n' +
      'data: {"error":{"message":"The server had an error","type":"server_error"}}\n\n' +
      'data: [DONE]\n\n';
    const { output } = feedAll(ctx, [stream]);
    expect(output).toBe(stream);
  });

  it('reports url_citation annotations in deltas and strips them when blocked', () => {
    const annotation = {
      type: 'url_citation',
      url_citation: { url: 'https://a.example/', title: 'A', start_index: 0, end_index: 3 },
    };
    const stream = sse([chunk({ content: 'Hi.', annotations: [annotation] }), chunk({}, 'stop')]);
    const allowed = fakeContext('openai-chat');
    const result = feedAll(allowed.ctx, [stream]);
    expect(result.output).toBe(stream);
    expect(allowed.hostedEvents).toEqual([
      { providerType: 'url_citation', name: 'web_search', sources: ['https://a.example/'] },
    ]);
    expect(result.evidence.hosted_tool_events).toHaveLength(1);
    const blocked = feedAll(fakeContext('openai-chat', { blockedHosted: ['web_search'] }).ctx, [
      stream,
    ]);
    expect(blocked.output).not.toContain('https://a.example/');
    expect(blocked.output).toContain('Hi.');
  });

  it('evidence() returns a copy', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const mediator = createOpenAIStreamMediator(ctx);
    mediator.push(MIXED);
    const evidence = mediator.evidence();
    evidence.tool_calls.length = 0;
    expect(mediator.evidence().tool_calls).toHaveLength(3);
  });
});

describe('certainlyNoWork (text deltas pass without being parsed)', () => {
  it('says so for text deltas, and not for anything the mediator acts on', () => {
    const text = (value: Json) => JSON.stringify(value);
    expect(certainlyNoWork(text(chunk({ role: 'assistant', content: '' })))).toBe(true);
    expect(certainlyNoWork(text(chunk({ content: 'say "finish_reason": "stop"' })))).toBe(true);
    expect(certainlyNoWork('{"choices":[{"delta":{},"finish_reason" :\n null}]}')).toBe(true);
    expect(certainlyNoWork(text(usageChunk))).toBe(true);
    for (const acted of [
      text(chunk({}, 'stop')),
      text(chunk({}, 'tool_calls')),
      text(chunk(first(0, 'call_1', 'search'))),
      text(chunk({ function_call: { name: 'f', arguments: '' } })),
      text(chunk({ annotations: [] })),
      '{"choices":[{"delta":{"tool\\u005fcalls":[]}}]}',
      '{"choices":[{"delta":{},"finish\\u005freason":"stop"}]}',
      '{"choices":[{"delta":{},"finish_reason":null,"finish_reason":"stop"}]}',
    ]) {
      expect(certainlyNoWork(acted), acted).toBe(false);
    }
  });

  it('never says so for a chunk that needs work, however it is written', () => {
    const KEYS = ['content', 'role', 'refusal', 'tool_calls', 'function_call', 'annotations'];
    const delta = fc.dictionary(
      fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 6 })),
      fc.oneof(fc.constant(null), fc.string({ maxLength: 12 }), fc.constant([])),
      { maxKeys: 3 },
    );
    const choice = fc.record(
      {
        index: fc.nat(3),
        delta,
        finish_reason: fc.constantFrom(null, 'stop', 'tool_calls', 'length'),
      },
      { requiredKeys: ['index'] },
    );
    // Some characters of the keys written as \u escapes, some spaces added: what a provider may
    // legally send.
    const written = fc
      .tuple(fc.array(choice, { maxLength: 3 }), fc.nat(), fc.boolean())
      .map(([choices, seed, spaced]) => {
        let json = JSON.stringify({ ...META, choices });
        const underscores = json.split('_').length - 1;
        let nth = seed % (underscores + 1);
        json = json.replace(/_([a-z])/g, (match, c: string) =>
          nth-- === 0 ? `\\u005f${c}` : match,
        );
        if (spaced) json = json.replaceAll('":', '" : ');
        return json;
      });
    fc.assert(
      fc.property(written, (data) => {
        const parsed = JSON.parse(data) as { choices: unknown[] };
        if (certainlyNoWork(data)) expect(needsWork(parsed.choices)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('errors and legacy function calls in a stream', () => {
  it('passes only the error object of an error chunk', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const hostile = {
      error: { message: 'boom', type: 'server_error' },
      choices: [{ index: 0, delta: first(0, BLOCKED.id, BLOCKED.name), finish_reason: null }],
    };
    const { output } = feedAll(ctx, [sse([chunk({ content: 'a' }), hostile])]);
    for (const leak of LEAKS) expect(output).not.toContain(leak);
    expect(dataOf(output)[1]).toEqual({ error: { message: 'boom', type: 'server_error' } });
  });

  it('holds a legacy function_call, renames it back and releases it whole', () => {
    const { ctx } = fakeContext('openai-chat', CONTEXT);
    const output = feedAll(ctx, [
      sse([
        chunk({ role: 'assistant', function_call: { name: 'mcp__weather__get', arguments: '' } }),
        chunk({ function_call: { arguments: '{"city":' } }),
        chunk({ function_call: { arguments: '"Paris"}' } }),
        chunk({}, 'function_call'),
      ]),
    ]).output;
    const calls = dataOf(output).flatMap((d) =>
      typeof d === 'string' ? [] : (((d.choices as Json[])[0]?.delta as Json)?.function_call ?? []),
    );
    expect(calls).toEqual([{ name: 'weather/get', arguments: '{"city":"Paris"}' }]);
  });

  it('needs to parse an event that may be an error', () => {
    expect(certainlyNoWork('{"error":{"message":"x"}}')).toBe(false);
    expect(certainlyNoWork('{"choices":[{"delta":{"content":"an \\"error\\""}}]}')).toBe(true);
  });
});
