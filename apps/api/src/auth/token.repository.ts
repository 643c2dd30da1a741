import { Inject, Injectable } from '@nestjs/common';
import type { TokenSummary } from '@toolgate/contract';
import { PrismaService, type Tx } from '../database/prisma.service.ts';

interface TokenRow {
  id: string;
  identityName: string;
  description: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

@Injectable()
export class TokenRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  async insert(
    tx: Tx,
    token: {
      id: string;
      identityUid: string;
      identityName: string;
      tokenHash: string;
      description: string;
      expiresAt: Date | null;
    },
  ): Promise<TokenSummary> {
    return toSummary(await tx.apiToken.create({ data: token }));
  }

  /** The identity a live (not revoked, not expired) token belongs to. */
  async findLive(
    tokenHash: string,
    now: Date,
  ): Promise<{ id: string; identityName: string } | undefined> {
    // On every authenticated request: straight on the pool, not through Prisma's query compiler.
    const { rows } = await this.prisma.pool.query<{
      id: string;
      identityName: string;
      expiresAt: Date | null;
      revokedAt: Date | null;
    }>({
      name: 'token-find-live',
      text: `SELECT id, identity_name AS "identityName", expires_at AS "expiresAt",
                    revoked_at AS "revokedAt"
               FROM api_tokens WHERE token_hash = $1`,
      values: [tokenHash],
    });
    const row = rows[0];
    if (!row || row.revokedAt || (row.expiresAt && row.expiresAt <= now)) return undefined;
    return { id: row.id, identityName: row.identityName };
  }

  /** Every token not revoked and not expired at `now`, by identity name (for bundles). */
  async liveByIdentity(
    now: Date,
  ): Promise<Map<string, Array<{ sha256: string; expiresAt: string | null }>>> {
    const rows = await this.prisma.client.apiToken.findMany({
      where: { revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
      select: { identityName: true, tokenHash: true, expiresAt: true },
      orderBy: [{ identityName: 'asc' }, { tokenHash: 'asc' }],
    });
    const byIdentity = new Map<string, Array<{ sha256: string; expiresAt: string | null }>>();
    for (const row of rows) {
      const list = byIdentity.get(row.identityName) ?? [];
      list.push({ sha256: row.tokenHash, expiresAt: row.expiresAt?.toISOString() ?? null });
      byIdentity.set(row.identityName, list);
    }
    return byIdentity;
  }

  /**
   * Per identity: its live tokens (not revoked, not expired at `now`) and the last time any of
   * its tokens was used. One grouped query for a whole page of identities.
   */
  async usageByIdentity(
    identityNames: string[],
    now: Date,
  ): Promise<Map<string, { active: number; lastUsedAt: Date | null }>> {
    const rows = await this.prisma.client.$queryRaw<
      Array<{ identity_name: string; active: bigint; last_used_at: Date | null }>
    >`SELECT identity_name,
             count(*) FILTER (WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${now})) AS active,
             max(last_used_at) AS last_used_at
        FROM api_tokens
       WHERE identity_name = ANY(${identityNames}::text[])
       GROUP BY identity_name`;
    return new Map(
      rows.map((row) => [
        row.identity_name,
        { active: Number(row.active), lastUsedAt: row.last_used_at },
      ]),
    );
  }

  async listFor(identityName: string): Promise<TokenSummary[]> {
    const rows = await this.prisma.client.apiToken.findMany({
      where: { identityName },
      orderBy: { createdAt: 'desc' },
    });
    return rows.map(toSummary);
  }

  async find(tx: Tx, identityName: string, id: string): Promise<TokenSummary | undefined> {
    const row = await tx.apiToken.findFirst({ where: { id, identityName } });
    return row ? toSummary(row) : undefined;
  }

  async revoke(tx: Tx, id: string, at: Date): Promise<TokenSummary> {
    return toSummary(await tx.apiToken.update({ where: { id }, data: { revokedAt: at } }));
  }

  async revokeAllOf(tx: Tx, identityName: string, at: Date): Promise<number> {
    const result = await tx.apiToken.updateMany({
      where: { identityName, revokedAt: null },
      data: { revokedAt: at },
    });
    return result.count;
  }

  /** Best effort, outside any transaction: a lost update of lastUsedAt harms nobody. */
  async touch(id: string, at: Date): Promise<void> {
    await this.prisma.client.apiToken
      .update({ where: { id }, data: { lastUsedAt: at } })
      .catch(() => undefined);
  }
}

function toSummary(row: TokenRow): TokenSummary {
  return {
    id: row.id,
    identity: row.identityName,
    description: row.description,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}
