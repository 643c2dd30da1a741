import { describe, expect, it } from 'vitest';
import { encodeSse, splitFragments, splitText } from './sse.ts';

describe('encodeSse', () => {
  it('writes an optional event line and JSON data', () => {
    expect(encodeSse({ event: 'ping', data: { type: 'ping' } })).toBe(
      'event: ping\ndata: {"type":"ping"}\n\n',
    );
    expect(encodeSse({ data: '[DONE]' })).toBe('data: [DONE]\n\n');
  });
});

describe('splitText', () => {
  it('splits after whitespace and loses nothing', () => {
    expect(splitText('mock: 3 tools: a, b')).toEqual(['mock: ', '3 ', 'tools: ', 'a, ', 'b']);
    expect(splitText('  lead')).toEqual(['  ', 'lead']);
    expect(splitText('')).toEqual([]);
  });
});

describe('splitFragments', () => {
  it.each(['{}', '{"a":1}', JSON.stringify({ q: 'x'.repeat(100) })])('%s', (json) => {
    const pieces = splitFragments(json);
    expect(pieces.join('')).toBe(json);
    expect(pieces.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(16);
  });
});
