import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fakeContext } from '../response/fake-response-context.ts';
import { enforceResponsesBody } from '../response/openai-responses-response.ts';
import type { ResponseContext } from '../response/response-context.ts';
import { createOpenAIResponsesStreamMediator } from './openai-responses-stream.ts';
import { createSseParser } from './sse.ts';

type Json = Record<string, unknown>;

// --- a stream shaped like the real one: `event: <type>` lines, numbered events ---------------

const RESPONSE = {
  id: 'resp_68a1',
  object: 'response',
  created_at: 1_735_689_600,
  model: 'gpt-4.1-2025-04-14',
  tools: [],
  usage: null,
};

const BLOCKED = {
  name: 'exfil_zq_tool',
  id: 'fc_BLK_x9q7',
  callId: 'call_BLK_x9q7',
  pieces: ['{"qz_payload', '":"zebra-', 'quasar-', 'nebula"}'],
};
const LEAKS = [
  BLOCKED.name,
  BLOCKED.id,
  BLOCKED.callId,
  'qz_payload',
  'zebra-',
  'quasar-',
  'nebula',
];
const CONTEXT = { rename: { gh_issue: 'github/create_issue' }, blocked: [BLOCKED.name] };

const message = (id: string, text: string, annotations: Json[] = []) => ({
  id,
  type: 'message',
  status: 'completed',
  role: 'assistant',
  content: [{ type: 'output_text', text, annotations, logprobs: [] }],
});
const functionCall = (id: string, callId: string, name: string, args: string) => ({
  id,
  type: 'function_call',
  status: 'completed',
  call_id: callId,
  name,
  arguments: args,
});
const CITATION = {
  type: 'url_citation',
  url: 'https://example.com/a',
  title: 'A',
  start_index: 0,
  end_index: 5,
};
const WEB_SEARCH = {
  id: 'ws_1',
  type: 'web_search_call',
  status: 'completed',
  action: { type: 'search', query: 'weather in Paris' },
};

/** Builds a stream from items: each item's own events between its added and done. */
function streamOf(items: Json[], options: { completed?: boolean } = {}) {
  const events: Json[] = [];
  const push = (type: string, data: Json) => events.push({ type, ...data });
  push('response.created', { response: { ...RESPONSE, status: 'in_progress', output: [] } });
  push('response.in_progress', { response: { ...RESPONSE, status: 'in_progress', output: [] } });
  items.forEach((item, index) => {
    const at = { item_id: item.id, output_index: index };
    if (item.type === 'message') {
      const part = (item.content as Json[])[0] as Json;
      push('response.output_item.added', {
        output_index: index,
        item: { ...item, status: 'in_progress', content: [] },
      });
      const content = { ...at, content_index: 0 };
      push('response.content_part.added', {
        ...content,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      });
      for (const delta of String(part.text).match(/\S+\s*/g) ?? []) {
        push('response.output_text.delta', { ...content, delta, logprobs: [] });
      }
      (part.annotations as Json[]).forEach((annotation, i) => {
        push('response.output_text.annotation.added', {
          ...content,
          annotation_index: i,
          annotation,
        });
      });
      push('response.output_text.done', { ...content, text: part.text, logprobs: [] });
      push('response.content_part.done', { ...content, part });
    } else if (item.type === 'function_call') {
      push('response.output_item.added', {
        output_index: index,
        item: { ...item, status: 'in_progress', arguments: '' },
      });
      const args = String(item.arguments);
      const pieces = item.id === BLOCKED.id ? BLOCKED.pieces : [args.slice(0, 4), args.slice(4)];
      for (const delta of pieces) {
        push('response.function_call_arguments.delta', { ...at, delta });
      }
      push('response.function_call_arguments.done', { ...at, name: item.name, arguments: args });
    } else {
      push('response.output_item.added', {
        output_index: index,
        item: { ...item, status: 'in_progress' },
      });
      push(`response.${item.type}.in_progress`, at);
      push(`response.${item.type}.completed`, at);
    }
    push('response.output_item.done', { output_index: index, item });
  });
  if (options.completed !== false) {
    push('response.completed', { response: { ...RESPONSE, status: 'completed', output: items } });
  }
  return events
    .map((event, i) => {
      const data = { ...event, sequence_number: i };
      return `event: ${String(event.type)}\ndata: ${JSON.stringify(data)}\n\n`;
    })
    .join('');
}

const MIXED_ITEMS = [
  WEB_SEARCH,
  message('msg_1', 'Checking Paris now. ', [CITATION]),
  functionCall('fc_gh', 'call_gh', 'gh_issue', '{"title":"rain"}'),
  functionCall(BLOCKED.id, BLOCKED.callId, BLOCKED.name, BLOCKED.pieces.join('')),
  functionCall('fc_time', 'call_time', 'get_time', '{"tz":"CET"}'),
];
const MIXED = streamOf(MIXED_ITEMS);
const MIXED_BODY = { ...RESPONSE, status: 'completed', output: MIXED_ITEMS };

// --- helpers ----------------------------------------------------------------------------------

function feedAll(ctx: ResponseContext, pieces: Array<string | Uint8Array>) {
  const mediator = createOpenAIResponsesStreamMediator(ctx);
  const outputs = pieces.map((p) => mediator.push(p));
  outputs.push(mediator.end());
  return { output: outputs.join(''), outputs, evidence: mediator.evidence() };
}

function eventsOf(stream: string): string[] {
  return stream.split(/(?<=\n\n)/);
}

function parsed(output: string): Array<{ event?: string; data: Json }> {
  const parser = createSseParser();
  return [...parser.push(output), ...parser.end()].map((e) => ({
    ...(e.event ? { event: e.event } : {}),
    data: JSON.parse(e.data) as Json,
  }));
}

/**
 * What the `openai` SDK's accumulator needs of a stream: items added in `output_index` order
 * (it pushes them), every later event naming an item already added, `sequence_number`
 * contiguous, `event:` matching `type`. Returns the output it would hold at the end.
 */
function accumulate(output: string): Json[] {
  const items: Json[] = [];
  let expected: number | undefined;
  for (const { event, data } of parsed(output)) {
    expect(event).toBe(data.type);
    expected ??= data.sequence_number as number;
    expect(data.sequence_number).toBe(expected);
    expected++;
    if (data.type === 'response.output_item.added') {
      expect(data.output_index).toBe(items.length);
      items.push(data.item as Json);
    } else if (typeof data.output_index === 'number') {
      expect(data.output_index).toBeLessThan(items.length);
      if (data.type === 'response.output_item.done') items[data.output_index] = data.item as Json;
    }
  }
  return items;
}

const completedOf = (output: string) =>
  parsed(output).find((e) => e.data.type === 'response.completed')?.data.response as Json;

// --- the guarantees ---------------------------------------------------------------------------

describe('createOpenAIResponsesStreamMediator', () => {
  it('passes text through in the push that completed it, and holds call items', () => {
    const { ctx } = fakeContext('openai-responses', CONTEXT);
    const mediator = createOpenAIResponsesStreamMediator(ctx);
    const events = eventsOf(MIXED);
    const firstDelta = events.findIndex((e) => e.includes('output_text.delta'));
    let sent = '';
    for (const event of events.slice(0, firstDelta + 1)) sent += mediator.push(event);
    expect(sent).toContain('"delta":"Checking "');
    const callAdded = events.findIndex((e) => e.includes('"name":"gh_issue"'));
    let held = '';
    for (const event of events.slice(firstDelta + 1, callAdded + 2)) held += mediator.push(event);
    expect(held).not.toContain('gh_issue');
    expect(held).not.toContain('function_call');
  });

  it('never leaks any fragment of a blocked call, at any point', () => {
    const { ctx } = fakeContext('openai-responses', CONTEXT);
    const { outputs } = feedAll(ctx, eventsOf(MIXED));
    for (const out of outputs) for (const leak of LEAKS) expect(out).not.toContain(leak);
  });

  it('renames calls back and renumbers output_index and sequence_number for the SDK', () => {
    const { ctx } = fakeContext('openai-responses', CONTEXT);
    const { output } = feedAll(ctx, [MIXED]);
    const items = accumulate(output);
    expect(items.map((i) => [i.type, i.name])).toEqual([
      ['web_search_call', undefined],
      ['message', undefined],
      ['function_call', 'github/create_issue'],
      ['function_call', 'get_time'],
    ]);
    expect(completedOf(output).output).toEqual(items);
  });

  it('sends a released call whole: header, one delta, its done, the item', () => {
    const { ctx } = fakeContext('openai-responses', CONTEXT);
    const { output } = feedAll(ctx, [MIXED]);
    const events = parsed(output).filter(
      (e) => e.data.item_id === 'fc_gh' || (e.data.item as Json)?.id === 'fc_gh',
    );
    expect(events.map((e) => e.data.type)).toEqual([
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
    ]);
    expect(((events[0] as { data: Json }).data.item as Json).arguments).toBe('');
    expect(events[1]?.data.delta).toBe('{"title":"rain"}');
    expect(events[2]?.data).toMatchObject({
      name: 'github/create_issue',
      arguments: '{"title":"rain"}',
    });
  });

  it('passes a stream with nothing to judge through byte for byte', () => {
    const { ctx } = fakeContext('openai-responses', CONTEXT);
    const plain = streamOf([message('msg_1', 'Hello there, how are you?')]);
    expect(feedAll(ctx, eventsOf(plain)).output).toBe(plain);
  });

  it('reassembles to what enforceResponsesBody makes of the equivalent body', () => {
    const stream = fakeContext('openai-responses', CONTEXT);
    const json = fakeContext('openai-responses', CONTEXT);
    const { output, evidence } = feedAll(stream.ctx, [MIXED]);
    const enforced = enforceResponsesBody(MIXED_BODY, json.ctx);
    expect(completedOf(output).output).toEqual((enforced.body as Json).output);
    expect(evidence).toEqual(enforced.evidence);
  });

  it('yields the same output and evidence for any split of the input bytes', () => {
    const fixtures = [MIXED, streamOf(MIXED_ITEMS.slice(2), { completed: false })];
    const bytes = fixtures.map((f) => new TextEncoder().encode(f));
    const whole = fixtures.map((f) => feedAll(fakeContext('openai-responses', CONTEXT).ctx, [f]));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: fixtures.length - 1 }),
        fc.array(fc.integer({ min: 0, max: 6000 }), { maxLength: 60 }),
        (which, cuts) => {
          const data = bytes[which] as Uint8Array;
          const points = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
          const pieces: Uint8Array[] = [];
          let from = 0;
          for (const point of [...points, data.length]) {
            pieces.push(data.slice(from, point));
            from = point;
          }
          const split = feedAll(fakeContext('openai-responses', CONTEXT).ctx, pieces);
          expect(split.output).toBe(whole[which]?.output);
          expect(split.evidence).toEqual(whole[which]?.evidence);
        },
      ),
    );
  });

  it('never lets a blocked call’s bytes through, whatever its arguments and the split', () => {
    const marker = fc.stringMatching(/^[a-z]{6,12}$/).map((s) => `zq${s}`);
    fc.assert(
      fc.property(
        fc.uniqueArray(marker, { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.boolean(),
        (secrets, cuts, completed) => {
          const args = JSON.stringify(Object.fromEntries(secrets.map((s, i) => [`k${i}`, s])));
          const items = [
            message('msg_1', 'Working on it. '),
            functionCall('fc_leak', 'call_leak', BLOCKED.name, args),
            functionCall('fc_ok', 'call_ok', 'get_time', '{}'),
          ];
          const text = streamOf(items, { completed });
          const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const pieces: string[] = [];
          let from = 0;
          for (const point of [...points, text.length]) {
            pieces.push(text.slice(from, point));
            from = point;
          }
          const { outputs, evidence } = feedAll(
            fakeContext('openai-responses', CONTEXT).ctx,
            pieces,
          );
          for (const out of outputs) {
            for (const leak of [...secrets, 'fc_leak', 'call_leak', BLOCKED.name]) {
              expect(out).not.toContain(leak);
            }
          }
          expect(evidence.tool_calls.map((c) => c.policy_state)).toEqual(['blocked', 'allowed']);
        },
      ),
    );
  });

  it('drops a blocked hosted item and the citations of a blocked search, renumbering them', () => {
    const { ctx } = fakeContext('openai-responses', { blockedHosted: ['web_search'] });
    const cited = message('msg_1', 'Paris is rainy. ', [
      { type: 'file_citation', file_id: 'file-1', filename: 'a.md', index: 0 },
      CITATION,
      { type: 'file_citation', file_id: 'file-2', filename: 'b.md', index: 3 },
    ]);
    const { output, evidence } = feedAll(ctx, [streamOf([WEB_SEARCH, cited])]);
    expect(output).not.toContain('ws_1');
    expect(output).not.toContain('url_citation');
    const annotationIndices = parsed(output)
      .filter((e) => e.data.type === 'response.output_text.annotation.added')
      .map((e) => e.data.annotation_index);
    expect(annotationIndices).toEqual([0, 1]);
    const items = accumulate(output);
    expect(items.map((i) => i.type)).toEqual(['message']);
    expect((((items[0] as Json).content as Json[])[0] as Json).annotations).toHaveLength(2);
    expect(evidence.hosted_tool_events.map((e) => [e.provider_type, e.policy_state])).toEqual([
      ['web_search_call:web_search', 'blocked'],
      ['url_citation:web_search', 'blocked'],
    ]);
  });

  it('tells the agent why a call-time rule withheld a call, in a streamed message', () => {
    const { ctx } = fakeContext('openai-responses', { blocked: ['get_time'] });
    const denying: ResponseContext = {
      ...ctx,
      decideCall(id, name, args) {
        const decided = ctx.decideCall(id, name, args);
        return decided.policy_state === 'allowed'
          ? decided
          : { ...decided, decision: { outcome: 'deny', rule: 'r', message: 'Not now.' } };
      },
    };
    const { output } = feedAll(denying, [
      streamOf([functionCall('fc_time', 'call_time', 'get_time', '{}')]),
    ]);
    const items = accumulate(output);
    expect(items).toEqual([
      {
        id: 'msg_toolgate_fc_time',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Not now.', annotations: [] }],
      },
    ]);
    expect(completedOf(output).output).toEqual(items);
    const deltas = parsed(output).filter((e) => e.data.type === 'response.output_text.delta');
    expect(deltas.map((e) => e.data.delta)).toEqual(['Not now.']);
  });

  it('settles calls still held when the stream ends without response.completed', () => {
    const { ctx } = fakeContext('openai-responses', CONTEXT);
    const text = streamOf([functionCall('fc_time', 'call_time', 'get_time', '{"tz":"CET"}')], {
      completed: false,
    });
    const cut = text.slice(0, text.indexOf('event: response.output_item.done'));
    const { output, evidence } = feedAll(ctx, [cut]);
    expect(accumulate(output).map((i) => [i.name, i.arguments])).toEqual([
      ['get_time', '{"tz":"CET"}'],
    ]);
    expect(evidence.tool_calls).toHaveLength(1);
  });

  it('judges items that response.completed holds but the stream never showed', () => {
    const { ctx } = fakeContext('openai-responses', CONTEXT);
    const completed = {
      type: 'response.completed',
      sequence_number: 2,
      response: {
        ...RESPONSE,
        status: 'completed',
        output: [
          functionCall(BLOCKED.id, BLOCKED.callId, BLOCKED.name, '{}'),
          functionCall('fc_gh', 'call_gh', 'gh_issue', '{}'),
        ],
      },
    };
    const text = `${streamOf([], { completed: false })}event: response.completed\ndata: ${JSON.stringify(completed)}\n\n`;
    const { output, evidence } = feedAll(ctx, [text]);
    expect(output).not.toContain(BLOCKED.name);
    expect(completedOf(output).output).toEqual([
      functionCall('fc_gh', 'call_gh', 'github/create_issue', '{}'),
    ]);
    expect(evidence.tool_calls.map((c) => c.policy_state)).toEqual(['blocked', 'allowed']);
  });

  it('drops events of items it never saw added, passes comments and malformed events', () => {
    const { ctx } = fakeContext('openai-responses', CONTEXT);
    const orphan = {
      type: 'response.function_call_arguments.delta',
      item_id: 'fc_x',
      output_index: 7,
      delta: '{"qz_payload":1}',
      sequence_number: 3,
    };
    const text = `: keep-alive\n\nevent: response.function_call_arguments.delta\ndata: ${JSON.stringify(orphan)}\n\ndata: {not json\n\n`;
    const { output } = feedAll(ctx, [text]);
    expect(output).toBe(': keep-alive\n\ndata: {not json\n\n');
  });

  it('passes only the fields of an error event, scrubbed of secrets', () => {
    const { ctx } = fakeContext('openai-responses', CONTEXT);
    const error = {
      type: 'error',
      code: 'server_error',
      message: 'upstream said sk-live-abcdefghijklmnop',
      param: null,
      sequence_number: 0,
      output: [functionCall('fc_x', 'call_x', BLOCKED.name, '{}')],
    };
    const { output } = feedAll(ctx, [`event: error\ndata: ${JSON.stringify(error)}\n\n`]);
    expect(parsed(output)[0]?.data).toEqual({
      type: 'error',
      code: 'server_error',
      message: 'upstream said [REDACTED]',
      param: null,
      sequence_number: 0,
    });
  });

  it('evidence() returns a copy', () => {
    const { ctx } = fakeContext('openai-responses', CONTEXT);
    const mediator = createOpenAIResponsesStreamMediator(ctx);
    mediator.push(MIXED);
    const first = mediator.evidence();
    first.tool_calls.length = 0;
    expect(mediator.evidence().tool_calls.length).toBeGreaterThan(0);
  });
});
