import { Inject, Injectable } from '@nestjs/common';
import type { ReceiptToolLink } from '@toolgate/contract';
import { PrismaService } from '../database/prisma.service.ts';

/** Links served per receipt at most (a receipt holds at most 64 results and a bounded list of calls). */
const MAX_LINKS = 500;

/** The call-to-result links of `receipt_tool_calls` (written at ingest, receipt-tool-links.ts). */
@Injectable()
export class ReceiptToolLinksRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  /**
   * For each call and result of the receipt, the receipts holding the other side: a call's
   * results come later, a result's call earlier (or at the same time). Undefined when no
   * receipt has this id.
   */
  async linksOf(id: string): Promise<ReceiptToolLink[] | undefined> {
    const [known] = await this.prisma.client.$queryRaw<unknown[]>`
      SELECT 1 FROM receipt_links WHERE id = ${id}`;
    if (known === undefined) return undefined;
    const rows = await this.prisma.client.$queryRaw<
      Array<{
        toolCallId: string;
        side: 'call' | 'result';
        receipt: string;
        gateway: string;
        receivedAt: Date;
      }>
    >`
      SELECT mine.tool_call_id AS "toolCallId", mine.role AS side, other.receipt_id AS receipt,
        other.gateway, other.received_at AS "receivedAt"
      FROM receipt_tool_calls mine
      JOIN receipt_tool_calls other
        ON other.tool_call_id = mine.tool_call_id AND other.action_id = mine.action_id
        AND other.role <> mine.role AND other.receipt_id <> mine.receipt_id
        AND CASE WHEN mine.role = 'call' THEN other.received_at >= mine.received_at
                 ELSE other.received_at <= mine.received_at END
      WHERE mine.receipt_id = ${id}
      ORDER BY mine.role, mine.tool_call_id, other.received_at, other.receipt_id
      LIMIT ${MAX_LINKS}`;
    return rows.map((row) => ({ ...row, receivedAt: row.receivedAt.toISOString() }));
  }
}
