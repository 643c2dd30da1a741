import { Inject, Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.ts';

/** One recorded version of a gateway: just the status fields the sync history shows. */
export interface GatewayStatusReport {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  uid: string | null;
  at: Date;
  appliedBundleETag: string | null;
  conditions: unknown;
}

/**
 * Reads a gateway's past statuses from the watch event log, where every write of every object
 * is kept (newest WATCH_HISTORY events): the API already records each status report there, so
 * the history needs no second store. Only the few status fields are read, never whole objects.
 */
@Injectable()
export class GatewayStatusHistoryRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  /** The newest `limit` recorded versions of the gateway, newest first. */
  async reports(name: string, limit: number): Promise<GatewayStatusReport[]> {
    const rows = await this.prisma.client.$queryRaw<
      Array<{
        type: string;
        uid: string | null;
        created_at: Date;
        applied: string | null;
        conditions: unknown;
      }>
    >`SELECT type, object->'metadata'->>'uid' AS uid, created_at,
             object->'status'->>'appliedBundleETag' AS applied,
             object->'status'->'conditions' AS conditions
        FROM resource_events
       WHERE kind = 'Gateway' AND name = ${name}
       ORDER BY resource_version DESC
       LIMIT ${limit}`;
    return rows.map((row) => ({
      type: row.type as GatewayStatusReport['type'],
      uid: row.uid,
      at: row.created_at,
      appliedBundleETag: row.applied,
      conditions: row.conditions,
    }));
  }
}
