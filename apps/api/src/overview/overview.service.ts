import { Inject, Injectable } from '@nestjs/common';
import { DEFAULT_OVERVIEW_RANGE_MS, type Overview, type OverviewQuery } from '@toolgate/contract';
import { approvalState, type ToolCallApprovalStatus } from '@toolgate/core';
import { GatewaySyncService } from '../gateways/gateway-sync.service.ts';
import { type OverviewRange, OverviewRepository } from './overview.repository.ts';

/** About this many buckets when the query names no bucket size. */
const DEFAULT_BUCKETS = 48;

@Injectable()
export class OverviewService {
  constructor(
    @Inject(OverviewRepository) private readonly repository: OverviewRepository,
    @Inject(GatewaySyncService) private readonly gatewaySync: GatewaySyncService,
  ) {}

  async overview(query: OverviewQuery, now = Date.now()): Promise<Overview> {
    const range = overviewRange(query, now);
    const [aggregates, gateways, statuses] = await Promise.all([
      this.repository.aggregates(range),
      this.gatewaySync.list(now),
      this.repository.approvalStatuses(),
    ]);
    const pendingApprovals = statuses.filter(
      (status) => approvalState({ status: status as ToolCallApprovalStatus }, now) === 'pending',
    ).length;
    return {
      from: range.from.toISOString(),
      to: range.to.toISOString(),
      bucketSeconds: range.bucketSeconds,
      ...aggregates,
      gateways,
      pendingApprovals,
    };
  }
}

/** The query's range, or the last day; the bucket size given, or about 48 whole minutes. */
export function overviewRange(query: OverviewQuery, now: number): OverviewRange {
  const to = query.to === undefined ? new Date(now) : new Date(query.to);
  const from =
    query.from === undefined
      ? new Date(to.getTime() - DEFAULT_OVERVIEW_RANGE_MS)
      : new Date(query.from);
  const span = to.getTime() - from.getTime();
  const bucketSeconds =
    query.bucket ?? Math.max(60, Math.ceil(span / DEFAULT_BUCKETS / 60_000) * 60);
  return { from, to, bucketSeconds };
}
