import { Inject, Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.ts';

/** Finds approvals whose time is up but which do not say so yet. */
@Injectable()
export class ApprovalExpiryRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  /**
   * Names of approvals past `expiresAt` at `now` without an `Expired: True` condition, oldest
   * first, at most `limit`. A hint only: each is re-checked under its row lock before it is
   * written, so two API replicas sweeping at once write each expiry once.
   */
  async dueBefore(now: Date, limit: number): Promise<string[]> {
    const rows = await this.prisma.client.$queryRaw<Array<{ name: string }>>`
      SELECT name FROM resources
      WHERE kind = 'ToolCallApproval'
        AND (status ->> 'expiresAt')::timestamptz <= ${now}
        AND NOT coalesce(status -> 'conditions', '[]'::jsonb)
                @> '[{"type": "Expired", "status": "True"}]'::jsonb
      ORDER BY (status ->> 'expiresAt')::timestamptz
      LIMIT ${limit}`;
    return rows.map((row) => row.name);
  }

  /**
   * Approvals marked `Expired` whose `expiresAt` is at or before `cutoff` (the retention's
   * start), oldest first, at most `limit`, with the version listed: deleted only if unchanged.
   */
  async settledBefore(
    cutoff: Date,
    limit: number,
  ): Promise<Array<{ name: string; resourceVersion: string }>> {
    const rows = await this.prisma.client.$queryRaw<Array<{ name: string; version: bigint }>>`
      SELECT name, resource_version AS version FROM resources
      WHERE kind = 'ToolCallApproval'
        AND (status ->> 'expiresAt')::timestamptz <= ${cutoff}
        AND coalesce(status -> 'conditions', '[]'::jsonb)
              @> '[{"type": "Expired", "status": "True"}]'::jsonb
      ORDER BY (status ->> 'expiresAt')::timestamptz
      LIMIT ${limit}`;
    return rows.map((row) => ({ name: row.name, resourceVersion: row.version.toString() }));
  }
}
