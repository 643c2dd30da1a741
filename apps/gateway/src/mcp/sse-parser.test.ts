import { describe, expect, it } from 'vitest';
import { type SseEvent, SseParser } from './sse-parser.ts';

/** The upstream SSE parser: every event whole, wherever the stream's chunks are cut. */

const STREAM = [
  '\uFEFF: a comment first (a keep-alive)\r\n',
  'event: message\r\n',
  'id: 1\r\n',
  'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\r\n',
  '\r\n',
  'retry: 100\n',
  'data: line one\n',
  'data:line two\n',
  '\n',
  'event: other\r',
  'data: é ☃ 𝄞\r',
  '\r',
  'data\n\n',
  'event: empty\n\n',
  'data: {"jsonrpc":"2.0","id":"toolgate-1","result":{}}\n\n',
].join('');

const EXPECTED: SseEvent[] = [
  {
    event: 'message',
    id: '1',
    data: '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}',
  },
  { event: 'message', id: '1', data: 'line one\nline two' },
  { event: 'other', id: '1', data: 'é ☃ 𝄞' },
  { event: 'message', id: '1', data: '' },
  { event: 'message', id: '1', data: '{"jsonrpc":"2.0","id":"toolgate-1","result":{}}' },
];

function parse(chunks: string[]): SseEvent[] {
  const parser = new SseParser();
  return chunks.flatMap((chunk) => parser.push(chunk));
}

describe('SseParser', () => {
  it('parses a whole stream: CRLF, LF and CR line ends, comments, multi-line data, a BOM', () => {
    expect(parse([STREAM])).toEqual(EXPECTED);
  });

  it('gives the same events whatever two chunks the stream is cut into', () => {
    for (let cut = 0; cut <= STREAM.length; cut++) {
      expect(parse([STREAM.slice(0, cut), STREAM.slice(cut)])).toEqual(EXPECTED);
    }
  });

  it('gives the same events fed one character at a time', () => {
    expect(parse([...STREAM])).toEqual(EXPECTED);
  });

  it('holds an unfinished event until its blank line, and says how much it holds', () => {
    const parser = new SseParser();
    expect(parser.push('data: {"a":')).toEqual([]);
    expect(parser.push('1}\n')).toEqual([]);
    expect(parser.pending).toBe('{"a":1}'.length);
    expect(parser.push('\n')).toEqual([{ event: 'message', data: '{"a":1}' }]);
    expect(parser.pending).toBe(0);
  });
});
