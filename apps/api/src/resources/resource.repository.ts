import { Inject, Injectable } from '@nestjs/common';
import { API_VERSION, type LabelSelector } from '@toolgate/core';
import { Prisma } from '@toolgate/db';
import { PrismaService, type Tx } from '../database/prisma.service.ts';
import type { StoredObject } from './stored-object.ts';

interface ResourceRow {
  uid: string;
  kind: string;
  name: string;
  labels: unknown;
  annotations: unknown;
  generation: number;
  /** A bigint from Prisma, its decimal text from node-postgres. */
  resourceVersion: bigint | string;
  spec: unknown;
  status: unknown;
  specHash: string;
  createdAt: Date;
}

const COLUMNS = `uid, kind, name, labels, annotations, generation,
  resource_version AS "resourceVersion", spec, status, spec_hash AS "specHash",
  created_at AS "createdAt"`;

/** A stored object with the bookkeeping the store needs. */
export interface ResourceRecord {
  object: StoredObject;
  specHash: string;
}

export interface ResourceEventRecord {
  resourceVersion: bigint;
  kind: string;
  name: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: StoredObject;
}

/** Maps `resources` rows to objects; the only place that knows the table. */
@Injectable()
export class ResourceRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  /**
   * Outside a transaction, straight on the node-postgres pool: this runs on every request (the
   * caller's identity, a gateway's own Gateway) and for every bundle snapshot (all gateways), and
   * Prisma's query compiler and row mapping cost several times the query itself there.
   */
  async find(kind: string, name: string, tx?: Tx): Promise<ResourceRecord | undefined> {
    if (tx) {
      const row = await tx.resource.findUnique({ where: { kind_name: { kind, name } } });
      return row ? toRecord(row) : undefined;
    }
    const { rows } = await this.prisma.pool.query<ResourceRow>({
      name: 'resource-find',
      text: `SELECT ${COLUMNS} FROM resources WHERE kind = $1 AND name = $2`,
      values: [kind, name],
    });
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** Locks the row for the rest of the transaction (concurrent writers queue up). */
  async lock(tx: Tx, kind: string, name: string): Promise<ResourceRecord | undefined> {
    const rows = await tx.$queryRaw<ResourceRow[]>`
      SELECT uid, kind, name, labels, annotations, generation,
             resource_version AS "resourceVersion", spec, status,
             spec_hash AS "specHash", created_at AS "createdAt"
      FROM resources WHERE kind = ${kind} AND name = ${name} FOR UPDATE`;
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** Objects of a kind in name order, after `afterName`, matching the selector. */
  async list(
    kind: string,
    options: { selector: LabelSelector; afterName?: string; limit: number },
  ): Promise<ResourceRecord[]> {
    const rows = await this.prisma.client.$queryRaw<ResourceRow[]>`
      SELECT uid, kind, name, labels, annotations, generation,
             resource_version AS "resourceVersion", spec, status,
             spec_hash AS "specHash", created_at AS "createdAt"
      FROM resources
      WHERE kind = ${kind}
        ${options.afterName === undefined ? Prisma.empty : Prisma.sql`AND name > ${options.afterName}`}
        ${selectorSql(options.selector)}
      ORDER BY name
      LIMIT ${options.limit}`;
    return rows.map(toRecord);
  }

  /** Every object of a kind (small kinds: policies, identities, contracts, profiles). */
  async all(kind: string, tx?: Tx): Promise<ResourceRecord[]> {
    if (tx) {
      const rows = await tx.resource.findMany({ where: { kind }, orderBy: { name: 'asc' } });
      return rows.map(toRecord);
    }
    const { rows } = await this.prisma.pool.query<ResourceRow>({
      name: 'resource-all',
      text: `SELECT ${COLUMNS} FROM resources WHERE kind = $1 ORDER BY name`,
      values: [kind],
    });
    return rows.map(toRecord);
  }

  /** Reserves the next global resourceVersion. */
  async nextResourceVersion(tx: Tx): Promise<bigint> {
    const [row] = await tx.$queryRaw<Array<{ rv: bigint }>>`
      SELECT nextval(pg_get_serial_sequence('resource_events', 'resource_version')) AS rv`;
    return (row as { rv: bigint }).rv;
  }

  /** The newest resourceVersion handed out (0 on an empty database). */
  async currentResourceVersion(): Promise<bigint> {
    const [row] = await this.prisma.client.$queryRaw<Array<{ rv: bigint | null }>>`
      SELECT max(resource_version) AS rv FROM resource_events`;
    return row?.rv ?? 0n;
  }

  async insert(tx: Tx, object: StoredObject, specHash: string): Promise<void> {
    await tx.resource.create({ data: toRow(object, specHash) });
  }

  async update(tx: Tx, object: StoredObject, specHash: string): Promise<void> {
    const { uid, ...data } = toRow(object, specHash);
    await tx.resource.update({ where: { uid }, data: { ...data, updatedAt: new Date() } });
  }

  async remove(tx: Tx, uid: string): Promise<void> {
    await tx.resource.delete({ where: { uid } });
  }

  /** Records a change for watchers, and forgets events beyond the retained history. */
  async recordEvent(
    tx: Tx,
    event: Omit<ResourceEventRecord, 'object'> & { object: StoredObject },
    keep: number,
  ): Promise<void> {
    await tx.resourceEvent.create({
      data: {
        resourceVersion: event.resourceVersion,
        kind: event.kind,
        name: event.name,
        type: event.type,
        object: event.object as object,
      },
    });
    await tx.resourceEvent.deleteMany({
      where: { resourceVersion: { lte: event.resourceVersion - BigInt(keep) } },
    });
  }

  /** Events of a kind after `afterVersion`, oldest first. */
  async eventsSince(
    kind: string,
    afterVersion: bigint,
    limit: number,
  ): Promise<ResourceEventRecord[]> {
    const rows = await this.prisma.client.resourceEvent.findMany({
      where: { kind, resourceVersion: { gt: afterVersion } },
      orderBy: { resourceVersion: 'asc' },
      take: limit,
    });
    return rows.map((row) => ({
      resourceVersion: row.resourceVersion,
      kind: row.kind,
      name: row.name,
      type: row.type as ResourceEventRecord['type'],
      object: row.object as unknown as StoredObject,
    }));
  }

  /** The oldest resourceVersion still replayable (undefined when there is no history). */
  async oldestEventVersion(): Promise<bigint | undefined> {
    const row = await this.prisma.client.resourceEvent.findFirst({
      orderBy: { resourceVersion: 'asc' },
      select: { resourceVersion: true },
    });
    return row?.resourceVersion;
  }
}

function toRecord(row: ResourceRow): ResourceRecord {
  return {
    specHash: row.specHash,
    object: {
      apiVersion: API_VERSION,
      kind: row.kind,
      metadata: {
        name: row.name,
        uid: row.uid,
        labels: row.labels as Record<string, string>,
        annotations: row.annotations as Record<string, string>,
        generation: row.generation,
        resourceVersion: row.resourceVersion.toString(),
        creationTimestamp: row.createdAt.toISOString(),
      },
      spec: row.spec,
      status: (row.status ?? {}) as Record<string, unknown>,
    },
  };
}

function toRow(object: StoredObject, specHash: string) {
  return {
    uid: object.metadata.uid,
    kind: object.kind,
    name: object.metadata.name,
    labels: object.metadata.labels,
    annotations: object.metadata.annotations,
    generation: object.metadata.generation,
    resourceVersion: BigInt(object.metadata.resourceVersion),
    spec: object.spec as object,
    status: object.status as object,
    specHash,
    createdAt: new Date(object.metadata.creationTimestamp),
  };
}

/** Kubernetes label selector semantics in SQL (labels is a jsonb object of strings). */
function selectorSql(selector: LabelSelector): Prisma.Sql {
  const parts: Prisma.Sql[] = [];
  if (selector.matchLabels && Object.keys(selector.matchLabels).length > 0) {
    parts.push(Prisma.sql`labels @> ${JSON.stringify(selector.matchLabels)}::jsonb`);
  }
  for (const req of selector.matchExpressions ?? []) {
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
        parts.push(Prisma.sql`(labels ->> ${req.key}) = ANY(${values}::text[])`);
        break;
      case 'NotIn':
        parts.push(
          Prisma.sql`NOT coalesce((labels ->> ${req.key}) = ANY(${values}::text[]), false)`,
        );
        break;
      case 'Exists':
        parts.push(Prisma.sql`jsonb_exists(labels, ${req.key})`);
        break;
      case 'DoesNotExist':
        parts.push(Prisma.sql`NOT jsonb_exists(labels, ${req.key})`);
        break;
    }
  }
  return parts.length === 0 ? Prisma.empty : Prisma.sql`AND ${Prisma.join(parts, ' AND ')}`;
}
