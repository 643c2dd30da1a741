/** The audit log's quick ranges: from this long ago until now. */
export const AUDIT_PRESETS = {
  hour: { label: 'Last hour', ms: 3_600_000 },
  day: { label: 'Last day', ms: 86_400_000 },
  week: { label: 'Last week', ms: 7 * 86_400_000 },
} as const;
export type AuditPreset = keyof typeof AUDIT_PRESETS;

export function isAuditPreset(value: string | undefined): value is AuditPreset {
  return value !== undefined && Object.hasOwn(AUDIT_PRESETS, value);
}

/** Why a custom range cannot be asked for, in words; undefined when it can. */
export function auditRangeError(since: string | undefined, until: string | undefined) {
  const from = since ? Date.parse(since) : undefined;
  const to = until ? Date.parse(until) : undefined;
  if (from !== undefined && Number.isNaN(from)) return '“From” is not a valid time.';
  if (to !== undefined && Number.isNaN(to)) return '“Until” is not a valid time.';
  if (from !== undefined && to !== undefined && to <= from) return '“Until” must be after “From”.';
  return undefined;
}

/**
 * The URL's range as the API's since/until. A preset ends now and is cut to the minute, so the
 * query (and its cache entry) stays the same for a minute instead of changing on every render.
 * A hand-edited range the API would refuse is dropped rather than sent.
 */
export function auditRangeQuery(
  values: { range?: string; since?: string; until?: string },
  now: number,
): { since?: string; until?: string } {
  if (isAuditPreset(values.range)) {
    const minute = Math.floor(now / 60_000) * 60_000;
    return { since: new Date(minute - AUDIT_PRESETS[values.range].ms).toISOString() };
  }
  if (auditRangeError(values.since, values.until)) return {};
  return {
    ...(values.since ? { since: new Date(values.since).toISOString() } : {}),
    ...(values.until ? { until: new Date(values.until).toISOString() } : {}),
  };
}
