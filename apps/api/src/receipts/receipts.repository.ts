import { Inject, Injectable } from '@nestjs/common';
import type { Receipt } from '@toolgate/core';
import { PrismaService } from '../database/prisma.service.ts';

/** Stored receipts. (Ingest, query and chain queries live here too.) */
@Injectable()
export class ReceiptsRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  async find(id: string): Promise<{ seq: string; receipt: Receipt } | undefined> {
    const row = await this.prisma.client.receipt.findUnique({
      where: { id },
      select: { seq: true, body: true },
    });
    return row ? { seq: row.seq.toString(), receipt: row.body as unknown as Receipt } : undefined;
  }
}
