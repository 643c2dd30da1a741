import { Inject, Injectable } from '@nestjs/common';
import { OVERVIEW_TOP, type Overview } from '@toolgate/contract';
import { Prisma } from '@toolgate/db';
import { PrismaService } from '../database/prisma.service.ts';

/** work_mem of the percentile statement (its sorts; per sort, not per connection). */
const SORT_MEMORY = '64MB';

/** A half-open time range `[from, to)` cut into buckets of `bucketSeconds`, starting at `from`. */
export interface OverviewRange {
  from: Date;
  to: Date;
  bucketSeconds: number;
}

interface BucketRow {
  start: Date;
  ok: bigint;
  blocked: bigint;
  withheld: bigint;
  error: bigint;
  mediation: number[] | null;
  upstream: number[] | null;
}

/**
 * The overview's aggregates, computed in PostgreSQL over `receipt_stats` (one narrow row per
 * receipt, derived at ingest: receipt-columns.ts): no receipt body is read, and only
 * aggregates leave the database.
 * The three statements run concurrently, each on its own pooled connection.
 */
@Injectable()
export class OverviewRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  async aggregates(
    range: OverviewRange,
  ): Promise<Pick<Overview, 'totals' | 'requests' | 'latency' | 'byRule' | 'topTools'>> {
    const [buckets, byRule, topTools] = await Promise.all([
      this.buckets(range),
      this.byRule(range),
      this.topTools(range),
    ]);
    const found = new Map(buckets.map((row) => [row.start.getTime(), row]));
    const totals = { requests: 0, ok: 0, blocked: 0, withheld: 0, error: 0 };
    const requests: Overview['requests'] = [];
    const latency: Overview['latency'] = [];
    const step = range.bucketSeconds * 1000;
    for (let start = range.from.getTime(); start < range.to.getTime(); start += step) {
      const row = found.get(start);
      const bucket = {
        start: new Date(start).toISOString(),
        ok: Number(row?.ok ?? 0),
        blocked: Number(row?.blocked ?? 0),
        withheld: Number(row?.withheld ?? 0),
        error: Number(row?.error ?? 0),
      };
      requests.push(bucket);
      totals.ok += bucket.ok;
      totals.blocked += bucket.blocked;
      totals.withheld += bucket.withheld;
      totals.error += bucket.error;
      if (row?.mediation && row.upstream) {
        latency.push({
          start: bucket.start,
          mediation: percentiles(row.mediation),
          upstream: percentiles(row.upstream),
        });
      }
    }
    totals.requests = totals.ok + totals.blocked + totals.withheld + totals.error;
    return { totals, requests, latency, byRule, topTools };
  }

  /** Counts by class (exclusive: overviewClass) and latency percentiles per bucket. */
  private buckets({ from, to, bucketSeconds }: OverviewRange): Promise<BucketRow[]> {
    // The rows sorted for the percentiles: a month of a million spills past the default 4 MB to
    // disk (0.86 s); in memory 0.2 s. The range is bounded (31 days), so is this.
    return this.prisma.client.$transaction(async (tx) => {
      await tx.$executeRaw`SET LOCAL work_mem = '${Prisma.raw(SORT_MEMORY)}'`;
      return tx.$queryRaw<BucketRow[]>`
      SELECT date_bin(make_interval(secs => ${bucketSeconds}::int), received_at,
          ${from}::timestamptz) AS start,
        count(*) FILTER (WHERE outcome_class = 'blocked') AS blocked,
        count(*) FILTER (WHERE outcome_class = 'withheld') AS withheld,
        count(*) FILTER (WHERE outcome_class = 'error') AS error,
        count(*) FILTER (WHERE outcome_class = 'ok') AS ok,
        percentile_cont(ARRAY[0.5, 0.95, 0.99]::float8[]) WITHIN GROUP (ORDER BY mediation_ms)
          AS mediation,
        percentile_cont(ARRAY[0.5, 0.95, 0.99]::float8[]) WITHIN GROUP (ORDER BY upstream_ms)
          AS upstream
      FROM receipt_stats
      WHERE received_at >= ${from}::timestamptz AND received_at < ${to}::timestamptz
      GROUP BY 1`;
    });
  }

  private async byRule({ from, to }: OverviewRange): Promise<Overview['byRule']> {
    const rows = await this.prisma.client.$queryRaw<
      Array<{ rule: string; blocked: bigint; withheld: bigint }>
    >`
      SELECT c.rule,
        count(*) FILTER (WHERE c.kind = 'blocked') AS blocked,
        count(*) FILTER (WHERE c.kind = 'withheld') AS withheld
      FROM receipt_stats s CROSS JOIN LATERAL (
        SELECT unnest(s.blocked_calls) AS rule, 'blocked' AS kind
        UNION ALL SELECT unnest(s.withheld_calls), 'withheld'
      ) c
      WHERE s.received_at >= ${from}::timestamptz AND s.received_at < ${to}::timestamptz
        AND s.outcome_class IN ('blocked', 'withheld')
      GROUP BY c.rule
      ORDER BY count(*) DESC, c.rule
      LIMIT ${OVERVIEW_TOP}`;
    return rows.map((row) => ({
      rule: row.rule,
      blocked: Number(row.blocked),
      withheld: Number(row.withheld),
    }));
  }

  private async topTools({ from, to }: OverviewRange): Promise<Overview['topTools']> {
    const rows = await this.prisma.client.$queryRaw<Array<{ tool: string; calls: bigint }>>`
      SELECT t.tool, count(*) AS calls
      FROM (
        -- unnest in the select list: half the time of a lateral join on a million rows.
        SELECT unnest(called_tools) AS tool FROM receipt_stats
        WHERE received_at >= ${from}::timestamptz AND received_at < ${to}::timestamptz
      ) t
      GROUP BY t.tool
      ORDER BY calls DESC, t.tool
      LIMIT ${OVERVIEW_TOP}`;
    return rows.map((row) => ({ tool: row.tool, calls: Number(row.calls) }));
  }

  /** Approvals' statuses, for the pending count (judged by `approvalState`, as gateways do). */
  async approvalStatuses(): Promise<unknown[]> {
    const rows = await this.prisma.client.$queryRaw<Array<{ status: unknown }>>`
      SELECT status FROM resources WHERE kind = 'ToolCallApproval'`;
    return rows.map((row) => row.status);
  }
}

function percentiles([p50 = 0, p95 = 0, p99 = 0]: number[]): {
  p50: number;
  p95: number;
  p99: number;
} {
  return { p50, p95, p99 };
}
