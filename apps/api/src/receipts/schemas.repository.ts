import { Inject, Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.ts';

/** Tool declarations, content-addressed: receipts reference them by canonical hash. */
@Injectable()
export class SchemasRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  /** Stores a declaration under its hash; false when it was already there. */
  async put(hash: string, body: Record<string, unknown>): Promise<boolean> {
    const inserted = await this.prisma.client.$executeRaw`
      INSERT INTO tool_schemas (hash, body) VALUES (${hash}, ${JSON.stringify(body)}::jsonb)
      ON CONFLICT (hash) DO NOTHING`;
    return inserted === 1;
  }

  /** Stores several declarations at once (those already there are left as they are). */
  async putMany(
    schemas: ReadonlyArray<{ hash: string; definition: Record<string, unknown> }>,
  ): Promise<void> {
    await this.prisma.client.$executeRaw`
      INSERT INTO tool_schemas (hash, body)
      SELECT * FROM unnest(
        ${schemas.map((s) => s.hash)}::text[],
        ${schemas.map((s) => JSON.stringify(s.definition))}::jsonb[])
      ON CONFLICT (hash) DO NOTHING`;
  }

  async get(hash: string): Promise<Record<string, unknown> | undefined> {
    const row = await this.prisma.client.toolSchema.findUnique({ where: { hash } });
    return row ? (row.body as Record<string, unknown>) : undefined;
  }

  async getMany(hashes: ReadonlyArray<string>): Promise<Map<string, Record<string, unknown>>> {
    const rows = await this.prisma.client.toolSchema.findMany({
      where: { hash: { in: [...hashes] } },
    });
    return new Map(rows.map((row) => [row.hash, row.body as Record<string, unknown>]));
  }
}
