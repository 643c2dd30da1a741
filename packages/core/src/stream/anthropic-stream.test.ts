import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { enforceAnthropicResponse } from '../response/anthropic-response.ts';
import { fakeContext } from '../response/fake-response-context.ts';
import type { ResponseContext } from '../response/response-context.ts';
import { createAnthropicStreamMediator } from './anthropic-stream.ts';
import { createSseParser } from './sse.ts';

// --- fixtures shaped like real Messages streams ---
type Json = Record<string, unknown>;
const event = (type: string, data: Json = {}) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const PING = 'event: ping\ndata: {"type": "ping"}\n\n';
const MESSAGE = {
  id: 'msg_014p7gG3wDgGV9EUtLvnow3U',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5-20250929',
  content: [],
  stop_reason: null,
  stop_sequence: null,
  usage: {
    input_tokens: 472,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 2,
  },
};
const messageStart = event('message_start', { message: MESSAGE });
const messageEnd = (stopReason: string) =>
  event('message_delta', {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 89 },
  }) + event('message_stop');

const textBlock = (index: number, pieces: string[]) =>
  event('content_block_start', { index, content_block: { type: 'text', text: '' } }) +
  pieces
    .map((text) => event('content_block_delta', { index, delta: { type: 'text_delta', text } }))
    .join('') +
  event('content_block_stop', { index });

const jsonBlock = (index: number, block: Json, pieces: string[]) =>
  event('content_block_start', { index, content_block: { ...block, input: {} } }) +
  ['', ...pieces]
    .map((partial_json) =>
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }),
    )
    .join('') +
  event('content_block_stop', { index });

const toolBlock = (index: number, id: string, name: string, pieces: string[]) =>
  jsonBlock(index, { type: 'tool_use', id, name }, pieces);

const wholeBlock = (index: number, block: Json) =>
  event('content_block_start', { index, content_block: block }) +
  event('content_block_stop', { index });

const BLOCKED = {
  name: 'exfil_zq_tool',
  id: 'toolu_BLK_x9q7',
  pieces: ['{"qz_payload', '": "zebra-', 'quasar-', 'nebula"}'],
};
const LEAKS = [BLOCKED.name, BLOCKED.id, 'qz_payload', 'zebra-', 'quasar-', 'nebula'];
const CONTEXT = { rename: { mcp__fs__read: 'fs/read' }, blocked: [BLOCKED.name] };

/** Text, a renamed call, a blocked call, a plain call, stop_reason tool_use. */
const MIXED_EVENTS = [
  messageStart,
  textBlock(0, ['Okay, checking ', 'the file.']),
  PING,
  toolBlock(1, 'toolu_01A09q90qw90lq917835lq9', 'mcp__fs__read', ['{"path":', ' "/etc/hosts"}']),
  toolBlock(2, BLOCKED.id, BLOCKED.name, BLOCKED.pieces),
  toolBlock(3, 'toolu_01Time', 'get_time', ['{"tz": "CET"}']),
  messageEnd('tool_use'),
];
const MIXED = MIXED_EVENTS.join('');
const MIXED_BODY = {
  ...MESSAGE,
  content: [
    { type: 'text', text: 'Okay, checking the file.' },
    {
      type: 'tool_use',
      id: 'toolu_01A09q90qw90lq917835lq9',
      name: 'mcp__fs__read',
      input: { path: '/etc/hosts' },
    },
    {
      type: 'tool_use',
      id: BLOCKED.id,
      name: BLOCKED.name,
      input: JSON.parse(BLOCKED.pieces.join('')),
    },
    { type: 'tool_use', id: 'toolu_01Time', name: 'get_time', input: { tz: 'CET' } },
  ],
  stop_reason: 'tool_use',
  usage: { ...MESSAGE.usage, output_tokens: 89 },
};

const ONLY_BLOCKED = [
  messageStart,
  PING,
  toolBlock(0, BLOCKED.id, BLOCKED.name, BLOCKED.pieces),
  messageEnd('tool_use'),
].join('');

const searchResult = {
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
  ],
};
const citation = {
  type: 'web_search_result_location',
  url: 'https://meteo.example/paris',
  title: 'Paris',
  encrypted_index: 'Eo8BCioIAhgB',
  cited_text: 'Sunny',
};
const fetchResult = {
  type: 'web_fetch_tool_result',
  tool_use_id: 'srvtoolu_fetch_1',
  content: {
    type: 'web_fetch_result',
    url: 'https://evil-zq.example/',
    retrieved_at: '2025-08-25T10:30:00Z',
  },
};

/** Thinking, a hosted web search with its result, cited text, a hosted fetch + result, text. */
const HOSTED = [
  messageStart,
  PING,
  event('content_block_start', {
    index: 0,
    content_block: { type: 'thinking', thinking: '', signature: '' },
  }),
  event('content_block_delta', {
    index: 0,
    delta: { type: 'thinking_delta', thinking: 'Search first.' },
  }),
  event('content_block_delta', {
    index: 0,
    delta: { type: 'signature_delta', signature: 'EqQBCgIYAhIM' },
  }),
  event('content_block_stop', { index: 0 }),
  jsonBlock(
    1,
    { type: 'server_tool_use', id: 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE', name: 'web_search' },
    ['{"query": "weather ', 'paris"}'],
  ),
  wholeBlock(2, searchResult),
  event('content_block_start', { index: 3, content_block: { type: 'text', text: '' } }),
  event('content_block_delta', { index: 3, delta: { type: 'citations_delta', citation } }),
  event('content_block_delta', { index: 3, delta: { type: 'text_delta', text: 'It is sunny.' } }),
  event('content_block_stop', { index: 3 }),
  jsonBlock(4, { type: 'server_tool_use', id: 'srvtoolu_fetch_1', name: 'web_fetch' }, [
    '{"url": "https://evil-zq.example/"}',
  ]),
  wholeBlock(5, fetchResult),
  textBlock(6, [' Done.']),
  messageEnd('end_turn'),
].join('');
const HOSTED_BODY = {
  ...MESSAGE,
  content: [
    { type: 'thinking', thinking: 'Search first.', signature: 'EqQBCgIYAhIM' },
    {
      type: 'server_tool_use',
      id: 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE',
      name: 'web_search',
      input: { query: 'weather paris' },
    },
    searchResult,
    { type: 'text', text: 'It is sunny.', citations: [citation] },
    {
      type: 'server_tool_use',
      id: 'srvtoolu_fetch_1',
      name: 'web_fetch',
      input: { url: 'https://evil-zq.example/' },
    },
    fetchResult,
    { type: 'text', text: ' Done.' },
  ],
  stop_reason: 'end_turn',
  usage: { ...MESSAGE.usage, output_tokens: 89 },
};

// --- helpers ---
function feedAll(ctx: ResponseContext, pieces: Array<string | Uint8Array>) {
  const mediator = createAnthropicStreamMediator(ctx);
  const outputs = pieces.map((p) => mediator.push(p));
  outputs.push(mediator.end());
  return { output: outputs.join(''), outputs, evidence: mediator.evidence() };
}

const eventsOf = (stream: string) => stream.split(/(?<=\n\n)/);

function parsedEvents(output: string) {
  const parser = createSseParser();
  return [...parser.push(output), ...parser.end()].map((e) => {
    const data = JSON.parse(e.data) as Json;
    expect(e.event).toBe(data.type);
    return data;
  });
}

/** Accumulates a stream the way @anthropic-ai/sdk's MessageStream does (push on start, at(index) on delta). */
function accumulate(output: string): Json {
  let snapshot: Json = {};
  let content: Json[] = [];
  for (const data of parsedEvents(output)) {
    switch (data.type) {
      case 'message_start':
        snapshot = structuredClone(data.message) as Json;
        content = snapshot.content as Json[];
        break;
      case 'content_block_start':
        expect(data.index).toBe(content.length);
        content.push(structuredClone(data.content_block) as Json);
        break;
      case 'content_block_delta': {
        const block = content.at(data.index as number) as Json;
        expect(block).toBeDefined();
        const delta = data.delta as Json;
        if (delta.type === 'text_delta') block.text = `${block.text}${delta.text}`;
        if (delta.type === 'citations_delta') {
          block.citations ??= [];
          (block.citations as Json[]).push(delta.citation as Json);
        }
        if (delta.type === 'thinking_delta') block.thinking = `${block.thinking}${delta.thinking}`;
        if (delta.type === 'signature_delta') block.signature = delta.signature;
        if (delta.type === 'input_json_delta')
          block.__json = `${block.__json ?? ''}${delta.partial_json}`;
        break;
      }
      case 'content_block_stop': {
        const block = content.at(data.index as number) as Json;
        expect(block).toBeDefined();
        if ('__json' in block) {
          block.input = block.__json ? JSON.parse(block.__json as string) : {};
          delete block.__json;
        }
        break;
      }
      case 'message_delta':
        Object.assign(snapshot, data.delta);
        snapshot.usage = { ...(snapshot.usage as Json), ...(data.usage as Json) };
        break;
    }
  }
  return snapshot;
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

describe('createAnthropicStreamMediator', () => {
  it('streams text through at once and holds a tool_use block until its stop', () => {
    const { ctx } = fakeContext('anthropic-messages', CONTEXT);
    const events = eventsOf(MIXED);
    const { outputs } = feedAll(ctx, events);
    expect(outputs[0]).toBe(events[0]); // message_start
    expect(outputs[1]).toBe(events[1]); // text start
    expect(outputs[2]).toContain('Okay, checking ');
    expect(outputs[3]).toContain('the file.');
    expect(outputs[5]).toBe(PING);
    // tool_use 1: start + 3 deltas held, released at its stop
    for (const held of outputs.slice(6, 10)) expect(held).toBe('');
    expect(parsedEvents(outputs[10] as string)).toEqual([
      {
        type: 'content_block_start',
        index: 1,
        content_block: {
          type: 'tool_use',
          id: 'toolu_01A09q90qw90lq917835lq9',
          name: 'fs/read',
          input: {},
        },
      },
      {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '{"path": "/etc/hosts"}' },
      },
      { type: 'content_block_stop', index: 1 },
    ]);
  });

  it('never leaks any fragment of a blocked tool_use, at any point', () => {
    for (const stream of [MIXED, ONLY_BLOCKED]) {
      const { ctx } = fakeContext('anthropic-messages', CONTEXT);
      const { outputs } = feedAll(ctx, eventsOf(stream));
      for (const output of outputs) for (const leak of LEAKS) expect(output).not.toContain(leak);
    }
  });

  it('renumbers block indices contiguously in emission order', () => {
    const { ctx } = fakeContext('anthropic-messages', CONTEXT);
    const starts = parsedEvents(feedAll(ctx, [MIXED]).output).filter(
      (e) => e.type === 'content_block_start',
    );
    expect(starts.map((e) => [e.index, (e.content_block as Json).name ?? 'text'])).toEqual([
      [0, 'text'],
      [1, 'fs/read'],
      [2, 'get_time'],
    ]);
  });

  it('rewrites stop_reason to end_turn when every tool_use is blocked', () => {
    const { ctx } = fakeContext('anthropic-messages', CONTEXT);
    const { output, evidence } = feedAll(ctx, [ONLY_BLOCKED]);
    expect(accumulate(output)).toMatchObject({ content: [], stop_reason: 'end_turn' });
    expect(evidence.finish_reason).toBe('tool_use->end_turn');
    expect(output).toBe([messageStart, PING, messageEnd('end_turn')].join(''));
  });

  it('records evidence for every call, decided on the parsed complete input', () => {
    const { ctx, calls } = fakeContext('anthropic-messages', CONTEXT);
    const { evidence } = feedAll(ctx, [MIXED]);
    expect(calls).toEqual([
      {
        id: 'toolu_01A09q90qw90lq917835lq9',
        providerName: 'mcp__fs__read',
        rawArguments: { path: '/etc/hosts' },
      },
      {
        id: BLOCKED.id,
        providerName: BLOCKED.name,
        rawArguments: JSON.parse(BLOCKED.pieces.join('')),
      },
      { id: 'toolu_01Time', providerName: 'get_time', rawArguments: { tz: 'CET' } },
    ]);
    expect(evidence.tool_calls.map((e) => [e.name, e.policy_state])).toEqual([
      ['fs/read', 'allowed'],
      [BLOCKED.name, 'blocked'],
      ['get_time', 'allowed'],
    ]);
    expect(evidence.finish_reason).toBeUndefined();
  });

  type Options = Parameters<typeof fakeContext>[1];
  it.each<[string, string, unknown, Options[]]>([
    [
      'tool calls',
      MIXED,
      MIXED_BODY,
      [CONTEXT, { blocked: ['fs/read', 'get_time', BLOCKED.name] }, {}],
    ],
    [
      'hosted tools',
      HOSTED,
      HOSTED_BODY,
      [{ blockedHosted: ['web_fetch'] }, { blockedHosted: ['web_search'] }, {}],
    ],
  ])(
    'reassembles (%s) to what enforceAnthropicResponse makes of the equivalent body',
    (_name, stream, body, contexts) => {
      for (const options of contexts) {
        const streamed = accumulate(
          feedAll(fakeContext('anthropic-messages', options).ctx, [stream]).output,
        );
        const enforced = enforceAnthropicResponse(
          body,
          fakeContext('anthropic-messages', options).ctx,
        ).body;
        expect(streamed).toEqual(enforced);
      }
    },
  );

  it('reports hosted blocks and strips a blocked one with its result', () => {
    const { ctx, hostedEvents } = fakeContext('anthropic-messages', {
      blockedHosted: ['web_fetch'],
    });
    const { output, outputs, evidence } = feedAll(ctx, eventsOf(HOSTED));
    for (const piece of outputs) expect(piece).not.toContain('evil-zq');
    expect(output).toContain('https://meteo.example/paris');
    expect(hostedEvents).toEqual([
      {
        id: 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE',
        providerType: 'server_tool_use',
        name: 'web_search',
        input: { query: 'weather paris' },
      },
      {
        id: 'srvtoolu_01WYG3ziw53XMcoyKL4XcZmE',
        providerType: 'web_search_tool_result',
        sources: ['https://meteo.example/paris'],
      },
      {
        id: 'srvtoolu_fetch_1',
        providerType: 'server_tool_use',
        name: 'web_fetch',
        input: { url: 'https://evil-zq.example/' },
      },
      {
        id: 'srvtoolu_fetch_1',
        providerType: 'web_fetch_tool_result',
        sources: ['https://evil-zq.example/'],
      },
    ]);
    expect(evidence.hosted_tool_events.map((e) => e.policy_state)).toEqual([
      'allowed',
      'allowed',
      'blocked',
      'allowed',
    ]);
    const indices = parsedEvents(output)
      .filter((e) => e.type === 'content_block_start')
      .map((e) => e.index);
    expect(indices).toEqual([0, 1, 2, 3, 4]);
  });

  it('passes the cited text block through at once', () => {
    const { ctx } = fakeContext('anthropic-messages');
    const events = eventsOf(HOSTED);
    const { outputs } = feedAll(ctx, events);
    const textDelta = events.findIndex((e) => e.includes('It is sunny.'));
    expect(outputs[textDelta]).toBe(events[textDelta]);
  });

  it('yields the same output and evidence for any split of the input bytes', () => {
    const fixtures = [MIXED, ONLY_BLOCKED, HOSTED].map((s) => new TextEncoder().encode(s));
    const options = { ...CONTEXT, blockedHosted: ['web_fetch'] };
    const whole = fixtures.map((bytes) =>
      feedAll(fakeContext('anthropic-messages', options).ctx, [bytes]),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: fixtures.length - 1 }),
        fc.array(fc.integer({ min: 0, max: 6000 }), { maxLength: 60 }),
        (which, cuts) => {
          const bytes = fixtures[which] as Uint8Array;
          const pieces = randomPieces(
            bytes,
            cuts.map((c) => c % (bytes.length + 1)),
          );
          const result = feedAll(fakeContext('anthropic-messages', options).ctx, pieces);
          expect(result.output).toBe(whole[which]?.output);
          expect(result.evidence).toEqual(whole[which]?.evidence);
          for (const leak of [...LEAKS, 'evil-zq']) expect(result.output).not.toContain(leak);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('treats an empty input as {} and still emits one input_json_delta', () => {
    const { ctx, calls } = fakeContext('anthropic-messages');
    const stream = [
      messageStart,
      toolBlock(0, 'toolu_e', 'list_files', []),
      messageEnd('tool_use'),
    ].join('');
    const { output } = feedAll(ctx, [stream]);
    expect(calls[0]?.rawArguments).toEqual({});
    expect(accumulate(output)).toMatchObject({
      content: [{ type: 'tool_use', name: 'list_files', input: {} }],
      stop_reason: 'tool_use',
    });
    expect(parsedEvents(output).filter((e) => e.type === 'content_block_delta')).toHaveLength(1);
  });

  it('settles blocks still open when the message ends, and drops their late deltas', () => {
    const { ctx } = fakeContext('anthropic-messages', CONTEXT);
    const open = event('content_block_start', {
      index: 0,
      content_block: { type: 'tool_use', id: BLOCKED.id, name: BLOCKED.name, input: {} },
    });
    const late = event('content_block_delta', {
      index: 0,
      delta: { type: 'input_json_delta', partial_json: '{"qz_payload": 1}' },
    });
    const { output, evidence } = feedAll(ctx, [messageStart, open, messageEnd('tool_use'), late]);
    for (const leak of LEAKS) expect(output).not.toContain(leak);
    expect(evidence.tool_calls).toHaveLength(1);
    expect(output).toContain('"stop_reason":"end_turn"');
  });

  it('passes errors, comments, malformed JSON and unknown events through in order', () => {
    const { ctx } = fakeContext('anthropic-messages', CONTEXT);
    const stream = [
      messageStart,
      ': keep-alive\n\n',
      'event: content_block_delta\ndata: {broken\n\n',
      event('future_event', { x: 1 }),
      'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n',
    ].join('');
    expect(feedAll(ctx, [stream]).output).toBe(stream);
  });

  it('passes unknown held block types through re-indexed', () => {
    const { ctx } = fakeContext('anthropic-messages', CONTEXT);
    const redacted = wholeBlock(1, { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' });
    const stream = [
      messageStart,
      toolBlock(0, BLOCKED.id, BLOCKED.name, ['{}']),
      redacted,
      messageEnd('end_turn'),
    ].join('');
    const snapshot = accumulate(feedAll(ctx, [stream]).output);
    expect(snapshot.content).toEqual([{ type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' }]);
  });

  it('drops block events without a numeric index', () => {
    const { ctx } = fakeContext('anthropic-messages', CONTEXT);
    const odd = event('content_block_start', {
      content_block: { type: 'tool_use', id: BLOCKED.id, name: BLOCKED.name, input: {} },
    });
    expect(feedAll(ctx, [odd]).output).toBe('');
  });
});

describe('blocks and errors in odd places', () => {
  it('judges the blocks a message_start carries, and numbers the stream’s after them', () => {
    const { ctx } = fakeContext('anthropic-messages', CONTEXT);
    const blocked = {
      type: 'tool_use',
      id: BLOCKED.id,
      name: BLOCKED.name,
      input: { qz_payload: 1 },
    };
    const renamed = { type: 'tool_use', id: 'toolu_r', name: 'mcp__fs__read', input: {} };
    const start = event('message_start', { message: { ...MESSAGE, content: [blocked, renamed] } });
    const result = feedAll(ctx, [start + textBlock(0, ['hi']) + messageEnd('tool_use')]);
    for (const leak of LEAKS) expect(result.output).not.toContain(leak);
    const snapshot = accumulate(result.output);
    expect(snapshot.content).toEqual([
      { ...renamed, name: 'fs/read' },
      { type: 'text', text: 'hi' },
    ]);
    expect(snapshot.stop_reason).toBe('tool_use');
    expect(result.evidence.tool_calls.map((c) => c.policy_state)).toEqual(['blocked', 'allowed']);
  });

  it('turns stop_reason tool_use into end_turn when message_start held the only call', () => {
    const { ctx } = fakeContext('anthropic-messages', CONTEXT);
    const blocked = { type: 'tool_use', id: BLOCKED.id, name: BLOCKED.name, input: {} };
    const start = event('message_start', { message: { ...MESSAGE, content: [blocked] } });
    const snapshot = accumulate(feedAll(ctx, [start + messageEnd('tool_use')]).output);
    expect(snapshot.content).toEqual([]);
    expect(snapshot.stop_reason).toBe('end_turn');
  });

  it('passes only the error object of an error event', () => {
    const { ctx } = fakeContext('anthropic-messages', CONTEXT);
    const error = event('error', {
      error: {
        type: 'overloaded_error',
        message: 'Overloaded',
        details: { block: { name: BLOCKED.name } },
      },
      content: [{ type: 'tool_use', id: BLOCKED.id, name: BLOCKED.name, input: {} }],
    });
    const { output } = feedAll(ctx, [messageStart + error]);
    for (const leak of LEAKS) expect(output).not.toContain(leak);
    expect(parsedEvents(output).at(-1)).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
  });
});
