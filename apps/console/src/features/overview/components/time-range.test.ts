import { describe, expect, it } from 'vitest';
import { customRangeError, rangeChoice, resolveRange } from './time-range.ts';

describe('the overview time range', () => {
  it('reads a preset or a complete custom range from the URL, else the last day', () => {
    expect(rangeChoice({ range: 'hour' })).toEqual({ kind: 'preset', preset: 'hour' });
    expect(rangeChoice({})).toEqual({ kind: 'preset', preset: 'day' });
    expect(rangeChoice({ range: 'toString' })).toEqual({ kind: 'preset', preset: 'day' });
    expect(rangeChoice({ range: 'custom', from: '2026-03-01T00:00:00Z' })).toEqual({
      kind: 'preset',
      preset: 'day',
    });
    expect(
      rangeChoice({ range: 'custom', from: '2026-03-01T00:00:00Z', to: '2026-03-02T00:00:00Z' }),
    ).toEqual({ kind: 'custom', from: '2026-03-01T00:00:00Z', to: '2026-03-02T00:00:00Z' });
  });

  it('explains what is wrong with a custom range', () => {
    expect(customRangeError('', '2026-03-02T00:00:00Z')).toBe('Enter a start time.');
    expect(customRangeError('2026-03-02T00:00:00Z', 'soon')).toBe('Enter an end time.');
    expect(customRangeError('2026-03-02T00:00:00Z', '2026-03-01T00:00:00Z')).toBe(
      'The end must be after the start.',
    );
    expect(customRangeError('2026-01-01T00:00:00Z', '2026-03-01T00:00:00Z')).toBe(
      'A range is at most 31 days.',
    );
    expect(customRangeError('2026-03-01T00:00:00Z', '2026-03-02T00:00:00Z')).toBeUndefined();
  });

  it('ends a preset at the current minute, with its bucket size; refuses a bad custom range', () => {
    const now = Date.parse('2026-03-01T12:34:56.789Z');
    expect(resolveRange({ kind: 'preset', preset: 'hour' }, now)).toEqual({
      from: '2026-03-01T11:34:00.000Z',
      to: '2026-03-01T12:34:00.000Z',
      bucket: 60,
    });
    expect(
      resolveRange(
        { kind: 'custom', from: '2026-03-02T00:00:00Z', to: '2026-03-01T00:00:00Z' },
        now,
      ),
    ).toBeUndefined();
  });
});
