import { Inject, Injectable } from '@nestjs/common';
import type { GatewayStatusChange, GatewaySyncHistory, OverviewGateway } from '@toolgate/contract';
import {
  Condition,
  findCondition,
  type GatewayStatus,
  SPOOL_FULL_CONDITION,
  SYNCED_CONDITION,
} from '@toolgate/core';
import { z } from 'zod';
import { ResourceRepository } from '../resources/resource.repository.ts';
import { ResourceStore } from '../resources/resource-store.service.ts';
import { BundleService } from './bundle.service.ts';
import {
  GatewayStatusHistoryRepository,
  type GatewayStatusReport,
} from './gateway-status-history.repository.ts';

/** A gateway that has not synced for this long is stale (its long-poll is far shorter). */
export const GATEWAY_STALE_AFTER_MS = 5 * 60_000;
/** At most this many recorded versions are read for one history (about 16 h of reports). */
const HISTORY_SCAN = 2000;
const DEFAULT_HISTORY_CHANGES = 50;

/** Each gateway against the bundle the API would serve it now, and its status history. */
@Injectable()
export class GatewaySyncService {
  constructor(
    @Inject(BundleService) private readonly bundles: BundleService,
    @Inject(ResourceRepository) private readonly resources: ResourceRepository,
    @Inject(ResourceStore) private readonly store: ResourceStore,
    @Inject(GatewayStatusHistoryRepository)
    private readonly history: GatewayStatusHistoryRepository,
  ) {}

  async list(now = Date.now()): Promise<OverviewGateway[]> {
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

  async syncHistory(name: string, limit = DEFAULT_HISTORY_CHANGES): Promise<GatewaySyncHistory> {
    const gateway = await this.store.get('Gateway', name);
    const [{ etag }, reports] = await Promise.all([
      this.bundles.current(name),
      this.history.reports(name, HISTORY_SCAN),
    ]);
    const status = (gateway.status ?? {}) as Partial<GatewayStatus>;
    // Only this object's versions: a deleted and recreated gateway of the same name starts over.
    const own = reports.filter((report) => report.uid === gateway.metadata.uid);
    const changes = foldReports(own);
    return {
      sync: gatewaySync(name, status, etag, Date.now()),
      items: changes.slice(0, limit),
      complete: changes.length <= limit && own.some((report) => report.type === 'ADDED'),
    };
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

const StoredConditions = z.array(Condition).catch([]);

/**
 * Newest-first reports folded into stretches: a report that changes nothing that matters
 * (only its lastSyncTime or spool depth moved) extends the stretch after it.
 */
export function foldReports(reports: ReadonlyArray<GatewayStatusReport>): GatewayStatusChange[] {
  const changes: GatewayStatusChange[] = [];
  for (const report of reports) {
    const conditions = StoredConditions.parse(report.conditions ?? []);
    const synced = findCondition(conditions, SYNCED_CONDITION);
    const spool = findCondition(conditions, SPOOL_FULL_CONDITION);
    const entry: GatewayStatusChange = {
      since: report.at.toISOString(),
      until: report.at.toISOString(),
      reports: 1,
      sync: !synced ? 'unknown' : synced.status === 'True' ? 'synced' : 'nack',
      appliedBundleETag: report.appliedBundleETag,
      reason: synced?.status === 'False' ? (synced.reason ?? null) : null,
      message: synced?.status === 'False' ? (synced.message ?? null) : null,
      spoolFull: spool?.status === 'True',
    };
    const newer = changes.at(-1);
    if (newer && sameState(newer, entry)) {
      newer.since = entry.since;
      newer.reports += 1;
    } else {
      changes.push(entry);
    }
  }
  return changes;
}

function sameState(a: GatewayStatusChange, b: GatewayStatusChange): boolean {
  return (
    a.sync === b.sync &&
    a.appliedBundleETag === b.appliedBundleETag &&
    a.reason === b.reason &&
    a.message === b.message &&
    a.spoolFull === b.spoolFull
  );
}
