import { Inject, Injectable } from '@nestjs/common';
import type { PolicyRevision } from '@toolgate/contract';
import { PrismaService, type Tx } from '../database/prisma.service.ts';

/** The immutable generations of MediationPolicies. */
@Injectable()
export class PolicyRevisionsRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  async insert(
    tx: Tx,
    revision: Omit<PolicyRevision, 'createdAt'> & { policyUid: string },
  ): Promise<void> {
    await tx.policyRevision.create({
      data: {
        policyUid: revision.policyUid,
        name: revision.name,
        generation: revision.generation,
        spec: revision.spec as object,
        hash: revision.hash,
        author: revision.author,
        changeNote: revision.changeNote ?? null,
        rollbackOf: revision.rollbackOf ?? null,
      },
    });
  }

  /** Newest first. */
  async list(policyUid: string): Promise<PolicyRevision[]> {
    const rows = await this.prisma.client.policyRevision.findMany({
      where: { policyUid },
      orderBy: { generation: 'desc' },
    });
    return rows.map(toRevision);
  }

  async find(policyUid: string, generation: number): Promise<PolicyRevision | undefined> {
    const row = await this.prisma.client.policyRevision.findUnique({
      where: { policyUid_generation: { policyUid, generation } },
    });
    return row ? toRevision(row) : undefined;
  }
}

function toRevision(row: {
  name: string;
  generation: number;
  hash: string;
  author: string;
  createdAt: Date;
  spec: unknown;
  changeNote: string | null;
  rollbackOf: number | null;
}): PolicyRevision {
  return {
    name: row.name,
    generation: row.generation,
    hash: row.hash,
    author: row.author,
    createdAt: row.createdAt.toISOString(),
    spec: row.spec,
    ...(row.changeNote !== null ? { changeNote: row.changeNote } : {}),
    ...(row.rollbackOf !== null ? { rollbackOf: row.rollbackOf } : {}),
  };
}
