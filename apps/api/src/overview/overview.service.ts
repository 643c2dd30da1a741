import { Inject, Injectable } from '@nestjs/common';
import {
  DEFAULT_OVERVIEW_RANGE_MS,
  type Overview,
  type OverviewGateway,
  type OverviewQuery,
} from '@toolgate/contract';
import {
  approvalState,
  findCondition,
  type GatewayStatus,
  SYNCED_CONDITION,
  type ToolCallApprovalStatus,
} from '@toolgate/core';
import { BundleService } from '../gateways/bundle.service.ts';
import { ResourceRepository } from '../resources/resource.repository.ts';
import { type OverviewRange, OverviewRepository } from './overview.repository.ts';

/** About this many buckets when the query names no bucket size. */
const DEFAULT_BUCKETS = 48;
/** A gateway that has not synced for this long is stale (its long-poll is far shorter). */
export const GATEWAY_STALE_AFTER_MS = 5 * 60_000;

@Injectable()
export class OverviewService {
  constructor(
    @Inject(OverviewRepository) private readonly repository: OverviewRepository,
    @Inject(BundleService) private readonly bundles: BundleService,
    @Inject(ResourceRepository) private readonly resources: ResourceRepository,
  ) {}

  async overview(query: OverviewQuery, now = Date.now()): Promise<Overview> {
    const range = overviewRange(query, now);
    const [aggregates, gateways, statuses] = await Promise.all([
      this.repository.aggregates(range),
      this.gateways(now),
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

  /** Each gateway's status against the bundle the API would serve it now. */
  private async gateways(now: number): Promise<OverviewGateway[]> {
    const records = await this.resources.all('Gateway');
    return Promise.all(
      records.map(async (record) => {
        const name = record.object.metadata.name;
        const status = (record.object.status ?? {}) as Partial<GatewayStatus>;
        const { etag } = await this.bundles.current(name);
        return gatewaySync(name, status, etag, now);
      }),
    );
  }
}

export function gatewaySync(
  name: string,
  status: Partial<GatewayStatus>,
  desiredBundleETag: string,
  now: number,
): OverviewGateway {
  const synced = findCondition(status.conditions, SYNCED_CONDITION);
  const nack = synced?.status === 'False';
  const lastSync = status.lastSyncTime === undefined ? Number.NaN : Date.parse(status.lastSyncTime);
  const stale = !(now - lastSync <= GATEWAY_STALE_AFTER_MS);
  const applied = status.appliedBundleETag ?? null;
  const state = nack
    ? 'nack'
    : stale
      ? 'stale'
      : applied === desiredBundleETag
        ? 'in_sync'
        : 'behind';
  return {
    name,
    state,
    appliedBundleETag: applied,
    desiredBundleETag,
    lastSyncTime: status.lastSyncTime ?? null,
    message: nack ? (synced?.message ?? null) : null,
  };
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
