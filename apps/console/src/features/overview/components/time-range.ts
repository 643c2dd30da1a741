/** The time range of the overview, as the URL holds it (`range`, and `from`/`to` for custom). */

export const PRESETS = {
  hour: { label: 'Last hour', ms: 3_600_000, bucket: 60 },
  day: { label: 'Last day', ms: 86_400_000, bucket: 1800 },
  week: { label: 'Last week', ms: 7 * 86_400_000, bucket: 3 * 3600 },
} as const;
export type Preset = keyof typeof PRESETS;

/** The longest custom range the API serves (MAX_OVERVIEW_RANGE_MS in the contract). */
export const MAX_RANGE_MS = 31 * 86_400_000;

export type RangeChoice =
  | { kind: 'preset'; preset: Preset }
  | { kind: 'custom'; from: string; to: string };

export interface ResolvedRange {
  from: string;
  to: string;
  bucket?: number;
}

export function isPreset(value: string | undefined): value is Preset {
  return value !== undefined && Object.hasOwn(PRESETS, value);
}

/** The URL's choice: a known preset, custom with both ends, else the last day. */
export function rangeChoice(values: { range?: string; from?: string; to?: string }): RangeChoice {
  if (values.range === 'custom' && values.from && values.to) {
    return { kind: 'custom', from: values.from, to: values.to };
  }
  return { kind: 'preset', preset: isPreset(values.range) ? values.range : 'day' };
}

/**
 * What is wrong with a custom range, in words, or undefined. Checked before the API is asked
 * (which checks again and names the field).
 */
export function customRangeError(from: string, to: string): string | undefined {
  const start = Date.parse(from);
  const end = Date.parse(to);
  if (!from || Number.isNaN(start)) return 'Enter a start time.';
  if (!to || Number.isNaN(end)) return 'Enter an end time.';
  if (end <= start) return 'The end must be after the start.';
  if (end - start > MAX_RANGE_MS) return 'A range is at most 31 days.';
  return undefined;
}

/**
 * The request for a choice at `now`: presets end now, rounded down to the minute so that one
 * minute's renders share one query (and its cache).
 */
export function resolveRange(choice: RangeChoice, now: number): ResolvedRange | undefined {
  if (choice.kind === 'custom') {
    if (customRangeError(choice.from, choice.to)) return undefined;
    return { from: new Date(choice.from).toISOString(), to: new Date(choice.to).toISOString() };
  }
  const preset = PRESETS[choice.preset];
  const to = Math.floor(now / 60_000) * 60_000;
  return {
    from: new Date(to - preset.ms).toISOString(),
    to: new Date(to).toISOString(),
    bucket: preset.bucket,
  };
}
