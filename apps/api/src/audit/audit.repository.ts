import { Inject, Injectable } from '@nestjs/common';
import type { AuditEntry } from '@toolgate/contract';
import { PrismaService, type Tx } from '../database/prisma.service.ts';

export interface AuditRecord {
  actor: string;
  verb: string;
  kind: string;
  name: string;
  beforeHash: string | null;
  afterHash: string | null;
  details?: Record<string, unknown>;
}

export interface AuditFilter {
  kind?: string;
  name?: string;
  actor?: string;
  since?: Date;
  until?: Date;
  /** Entries older than this id (keyset). */
  beforeId?: bigint;
  limit: number;
}

@Injectable()
export class AuditRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  /** Appends inside the mutation's own transaction: no change without its audit entry. */
  async append(tx: Tx, record: AuditRecord): Promise<void> {
    await tx.auditEntry.create({
      data: {
        actor: record.actor,
        verb: record.verb,
        kind: record.kind,
        name: record.name,
        beforeHash: record.beforeHash,
        afterHash: record.afterHash,
        details: (record.details ?? {}) as object,
      },
    });
  }

  async list(filter: AuditFilter): Promise<AuditEntry[]> {
    const rows = await this.prisma.client.auditEntry.findMany({
      where: {
        ...(filter.kind ? { kind: filter.kind } : {}),
        ...(filter.name ? { name: filter.name } : {}),
        ...(filter.actor ? { actor: filter.actor } : {}),
        ...(filter.beforeId !== undefined ? { id: { lt: filter.beforeId } } : {}),
        ...(filter.since || filter.until
          ? {
              at: {
                ...(filter.since ? { gte: filter.since } : {}),
                ...(filter.until ? { lt: filter.until } : {}),
              },
            }
          : {}),
      },
      orderBy: { id: 'desc' },
      take: filter.limit,
    });
    return rows.map((row) => ({
      id: row.id.toString(),
      at: row.at.toISOString(),
      actor: row.actor,
      verb: row.verb,
      kind: row.kind,
      name: row.name,
      beforeHash: row.beforeHash,
      afterHash: row.afterHash,
      details: row.details as Record<string, unknown>,
    }));
  }
}
