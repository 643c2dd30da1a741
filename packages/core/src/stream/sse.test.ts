import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseParser, type SseEvent, serializeJsonSse, serializeSse } from './sse.ts';

function parseAll(chunks: Array<string | Uint8Array>): SseEvent[] {
  const parser = createSseParser();
  const events: SseEvent[] = [];
  for (const chunk of chunks) events.push(...parser.push(chunk));
  events.push(...parser.end());
  return events;
}

/** Mixed line endings, comments, names, ids, retry, multi-line data and multi-byte text. */
const SAMPLE =
  ': ping\n\n' +
  'event: message_start\r\ndata: {"type":"message_start"}\r\n\r\n' +
  'data: first line\rdata: second line\r\r' +
  'id: 42\nevent: delta\ndata:  two spaces\ndata:no space\n\n' +
  'retry: 1500\n\n' +
  'data: héllo wörld — 日本語 🌍🚀\n\n' +
  'data\n\n' +
  'event: only-an-event\n\n' +
  'foo: ignored\ndata: after unknown field\n\n' +
  'data: [DONE]\n\n';

const SAMPLE_EVENTS: SseEvent[] = [
  { data: '', comment: 'ping' },
  { event: 'message_start', data: '{"type":"message_start"}' },
  { data: 'first line\nsecond line' },
  { event: 'delta', id: '42', data: ' two spaces\nno space' },
  { data: '', retry: 1500 },
  { data: 'héllo wörld — 日本語 🌍🚀' },
  { data: '' },
  { data: 'after unknown field' },
  { data: '[DONE]' },
];

describe('createSseParser', () => {
  it('parses the sample whole', () => {
    expect(parseAll([SAMPLE])).toEqual(SAMPLE_EVENTS);
  });

  it('yields the same events when the text is split at any position', () => {
    for (let i = 0; i <= SAMPLE.length; i++) {
      expect(parseAll([SAMPLE.slice(0, i), SAMPLE.slice(i)]), `split at ${i}`).toEqual(
        SAMPLE_EVENTS,
      );
    }
  });

  it('yields the same events when the bytes are split at any position (inside UTF-8 too)', () => {
    const bytes = new TextEncoder().encode(SAMPLE);
    for (let i = 0; i <= bytes.length; i++) {
      expect(parseAll([bytes.subarray(0, i), bytes.subarray(i)]), `split at ${i}`).toEqual(
        SAMPLE_EVENTS,
      );
    }
  });

  it('yields the same events for any set of byte split points', () => {
    const bytes = new TextEncoder().encode(SAMPLE);
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: bytes.length }), { maxLength: 40 }),
        (cuts) => {
          const points = [...new Set(cuts)].sort((a, b) => a - b);
          const chunks: Uint8Array[] = [];
          let from = 0;
          for (const point of points) {
            chunks.push(bytes.subarray(from, point));
            from = point;
          }
          chunks.push(bytes.subarray(from));
          expect(parseAll(chunks)).toEqual(SAMPLE_EVENTS);
        },
      ),
    );
  });

  it('feeds one byte at a time, keeping a 4-byte character split three ways intact', () => {
    const bytes = new TextEncoder().encode('data: 🌍\n\n');
    const chunks = [...bytes].map((b) => Uint8Array.of(b));
    expect(parseAll(chunks)).toEqual([{ data: '🌍' }]);
  });

  it('treats \\r at the end of one piece and \\n at the start of the next as one line break', () => {
    const parser = createSseParser();
    expect(parser.push('data: a\r')).toEqual([]);
    expect(parser.push('\ndata: b\r')).toEqual([]);
    expect(parser.push('\n\r')).toEqual([{ data: 'a\nb' }]);
    expect(parser.push('\n')).toEqual([]);
    expect(parser.end()).toEqual([]);
  });

  it('returns each event from the push that completed it', () => {
    const parser = createSseParser();
    expect(parser.push('data: one\n')).toEqual([]);
    expect(parser.push('\ndata: tw')).toEqual([{ data: 'one' }]);
    expect(parser.push('o\n\n: keep-alive\n')).toEqual([
      { data: 'two' },
      { data: '', comment: 'keep-alive' },
    ]);
  });

  it.each<[string, string, SseEvent[]]>([
    ['field without colon', 'data\ndata\n\n', [{ data: '\n' }]],
    ['only one leading space is stripped', 'data:   x\n\n', [{ data: '  x' }]],
    ['no space after the colon', 'data:x\n\n', [{ data: 'x' }]],
    ['event without data is not dispatched', 'event: a\n\ndata: b\n\n', [{ data: 'b' }]],
    [
      'event name resets after dispatch',
      'event: a\ndata: 1\n\ndata: 2\n\n',
      [{ event: 'a', data: '1' }, { data: '2' }],
    ],
    ['id containing NUL is ignored', 'id: a\0b\ndata: x\n\n', [{ data: 'x' }]],
    ['non-numeric retry is ignored', 'retry: 10s\ndata: x\n\n', [{ data: 'x' }]],
    ['leading BOM is skipped', '\ufeffdata: x\n\n', [{ data: 'x' }]],
    ['comment without space', ':hi\n', [{ data: '', comment: 'hi' }]],
    ['empty data line', 'data:\n\n', [{ data: '' }]],
    ['end() flushes an unterminated event', 'data: last', [{ data: 'last' }]],
    ['end() flushes an event missing its blank line', 'data: x\n', [{ data: 'x' }]],
    ['CR only', 'data: a\rdata: b\r\r', [{ data: 'a\nb' }]],
  ])('%s', (_name, input, expected) => {
    expect(parseAll([input])).toEqual(expected);
  });

  it('is reusable after end()', () => {
    const parser = createSseParser();
    parser.push('data: a');
    expect(parser.end()).toEqual([{ data: 'a' }]);
    expect(parser.push('data: b\n\n')).toEqual([{ data: 'b' }]);
  });
});

describe('serializeSse', () => {
  it.each<[SseEvent, string]>([
    [{ data: 'x' }, 'data: x\n\n'],
    [{ event: 'ping', data: '{"type": "ping"}' }, 'event: ping\ndata: {"type": "ping"}\n\n'],
    [{ data: 'a\nb' }, 'data: a\ndata: b\n\n'],
    [{ data: '' }, 'data: \n\n'],
    [{ data: '', comment: 'ping' }, ': ping\n\n'],
    [{ data: '', retry: 3000 }, 'retry: 3000\n\n'],
    [{ data: 'x', id: '7', event: 'e' }, 'event: e\nid: 7\ndata: x\n\n'],
  ])('%j', (event, expected) => {
    expect(serializeSse(event)).toBe(expected);
  });

  it('round-trips through the parser', () => {
    for (const event of SAMPLE_EVENTS) expect(parseAll([serializeSse(event)])).toEqual([event]);
  });

  it('round-trips arbitrary data', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.option(fc.stringMatching(/^[a-z_]{1,12}$/), { nil: undefined }),
        (data, name) => {
          const event: SseEvent = name === undefined ? { data } : { event: name, data };
          const normalized = data.replace(/\r\n|\r/g, '\n');
          expect(parseAll([serializeSse(event)])).toEqual([{ ...event, data: normalized }]);
        },
      ),
    );
  });

  it('serializeJsonSse writes the Anthropic shape', () => {
    expect(serializeJsonSse('message_stop', { type: 'message_stop' })).toBe(
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    );
    expect(serializeJsonSse(undefined, { a: 1 })).toBe('data: {"a":1}\n\n');
  });
});
