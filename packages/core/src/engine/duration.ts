/**
 * Durations as policies write them: `30s`, `1m`, `1h`, `1d`, or a sum such as `1h30m`.
 * Parsed once at compile; a value that does not parse is refused with the field's path.
 */
const PART = /(\d{1,9})(ms|s|m|h|d)/gy;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds, or undefined when `text` is not a duration. */
export function parseDuration(text: string): number | undefined {
  if (text === '') return undefined;
  PART.lastIndex = 0;
  let total = 0;
  let at = 0;
  for (let match = PART.exec(text); match !== null; match = PART.exec(text)) {
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
    at = PART.lastIndex;
  }
  return at === text.length && total > 0 ? total : undefined;
}

/** `1h`, `90s`, `1h30m` from milliseconds (whole seconds; for messages). */
export function formatDuration(ms: number): string {
  let seconds = Math.max(1, Math.ceil(ms / 1000));
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const) {
    if (seconds >= size) {
      parts.push(`${Math.floor(seconds / size)}${unit}`);
      seconds %= size;
    }
  }
  if (seconds > 0 || parts.length === 0) parts.push(`${seconds}s`);
  return parts.join('');
}
