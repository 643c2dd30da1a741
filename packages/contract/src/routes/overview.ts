import { z } from 'zod';
import { decimalInteger } from '../decimal-integer.ts';
import { READERS, route } from '../route.ts';
import { API_PREFIX } from './resources.ts';

/** The longest range one overview covers: a month, so no request scans the whole history. */
export const MAX_OVERVIEW_RANGE_MS = 31 * 86_400_000;
/** Most buckets one overview answers: enough for a chart's width, bounded for the browser. */
export const MAX_OVERVIEW_BUCKETS = 500;
export const MIN_OVERVIEW_BUCKET_SECONDS = 60;
/** The range when the query names none: the last day. */
export const DEFAULT_OVERVIEW_RANGE_MS = 86_400_000;
/** Rows of the by-rule and top-tools lists. */
export const OVERVIEW_TOP = 10;

/**
 * `from`/`to` (default: the last 24 hours up to now) and `bucket` in seconds (default: the range
 * in about 48 buckets, whole minutes). Ranges and bucket counts are bounded; what breaks a bound
 * is named by its field.
 */
export const OverviewQuery = z
  .object({
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    bucket: decimalInteger(MIN_OVERVIEW_BUCKET_SECONDS, 31 * 86_400).optional(),
  })
  .strict()
  .superRefine((query, ctx) => {
    if ((query.from === undefined) !== (query.to === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [query.from === undefined ? 'from' : 'to'],
        message: 'from and to go together',
      });
      return;
    }
    const range =
      query.from === undefined || query.to === undefined
        ? DEFAULT_OVERVIEW_RANGE_MS
        : Date.parse(query.to) - Date.parse(query.from);
    if (range <= 0) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
      return;
    }
    if (range > MAX_OVERVIEW_RANGE_MS) {
      ctx.addIssue({ code: 'custom', path: ['from'], message: 'the range is at most 31 days' });
      return;
    }
    if (query.bucket !== undefined && range / (query.bucket * 1000) > MAX_OVERVIEW_BUCKETS) {
      ctx.addIssue({
        code: 'custom',
        path: ['bucket'],
        message: `the range holds at most ${MAX_OVERVIEW_BUCKETS} buckets`,
      });
    }
  });
export type OverviewQuery = z.infer<typeof OverviewQuery>;

/**
 * Requests of one bucket, each in one class: `blocked` (the policy blocked a call: the
 * receipt's outcome), else `withheld` (a call waits for a human's approval), else `error`
 * (not 2xx), else `ok`.
 */
export const OverviewRequestBucket = z.object({
  start: z.string(),
  ok: z.number().int(),
  blocked: z.number().int(),
  withheld: z.number().int(),
  error: z.number().int(),
});
export type OverviewRequestBucket = z.infer<typeof OverviewRequestBucket>;

const Percentiles = z.object({ p50: z.number(), p95: z.number(), p99: z.number() });

/** Latency percentiles (milliseconds) of one bucket's requests; only buckets with requests. */
export const OverviewLatencyBucket = z.object({
  start: z.string(),
  mediation: Percentiles,
  upstream: Percentiles,
});
export type OverviewLatencyBucket = z.infer<typeof OverviewLatencyBucket>;

/**
 * A gateway's sync state: `nack` (it refused the latest bundle), `stale` (no sync for 5
 * minutes, or never), `behind` (runs an older bundle than the API would serve it now),
 * `in_sync` (runs the latest).
 */
export const GatewaySyncState = z.enum(['in_sync', 'behind', 'nack', 'stale']);
export type GatewaySyncState = z.infer<typeof GatewaySyncState>;

export const OverviewGateway = z.object({
  name: z.string(),
  state: GatewaySyncState,
  appliedBundleETag: z.string().nullable(),
  desiredBundleETag: z.string(),
  lastSyncTime: z.string().nullable(),
  /** The NACK's error. */
  message: z.string().nullable(),
});
export type OverviewGateway = z.infer<typeof OverviewGateway>;

export const Overview = z.object({
  from: z.string(),
  to: z.string(),
  bucketSeconds: z.number().int(),
  totals: z.object({
    requests: z.number().int(),
    ok: z.number().int(),
    blocked: z.number().int(),
    withheld: z.number().int(),
    error: z.number().int(),
  }),
  /** Every bucket of the range, oldest first (empty ones with zeros). */
  requests: z.array(OverviewRequestBucket),
  latency: z.array(OverviewLatencyBucket),
  /**
   * Blocked and withheld calls by the rule that decided (`policy/rule`), or the reason a call
   * was blocked without one (`hidden`, `not_declared`); the top {@link OVERVIEW_TOP}.
   */
  byRule: z.array(
    z.object({ rule: z.string(), blocked: z.number().int(), withheld: z.number().int() }),
  ),
  /** The most called tools (calls the provider made), the top {@link OVERVIEW_TOP}. */
  topTools: z.array(z.object({ tool: z.string(), calls: z.number().int() })),
  gateways: z.array(OverviewGateway),
  /** Tool call approvals waiting for a decision now. */
  pendingApprovals: z.number().int(),
});
export type Overview = z.infer<typeof Overview>;

export const overviewRouteTable = {
  get: route({
    method: 'GET',
    path: `${API_PREFIX}/receipts/overview`,
    tag: 'Receipts',
    summary:
      'Aggregates for the console overview: requests by outcome, latency percentiles, blocked ' +
      'and withheld calls by rule, top tools, gateway sync state, pending approvals',
    access: READERS,
    query: OverviewQuery,
    response: Overview,
  }),
};
