import { Inject, Injectable } from '@nestjs/common';
import { MAX_RECEIPT_VALUES, type ReceiptValueField } from '@toolgate/contract';
import { Prisma } from '@toolgate/db';
import { PrismaService } from '../database/prisma.service.ts';

/**
 * Receipts read for suggestions: the newest this many. Distinct values over a million receipts
 * would be a scan of them all; what was used lately is what people look for, and the resources
 * (gateways, policies and their revisions, identities) add every value that exists at all.
 */
export const RECENT_RECEIPTS = 5000;

/**
 * Values the console's filter pickers suggest, each source bounded: the named resources, every
 * revision's rules (revisions are few and kept forever, so a deleted rule is still findable), and
 * every tool name ever stored (`receipt_tool_names`), and the newest {@link RECENT_RECEIPTS}
 * receipts for what only receipts know (identities from headers). Sorted, at most {@link MAX_RECEIPT_VALUES}.
 */
@Injectable()
export class ReceiptValuesRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  async values(
    field: ReceiptValueField,
    contains: string | undefined,
  ): Promise<{ items: string[]; truncated: boolean }> {
    const needle = (contains ?? '').toLowerCase();
    const rows = await this.prisma.client.$queryRaw<Array<{ value: string }>>`
      SELECT DISTINCT value FROM (${sourceOf(field)}) candidates(value)
      WHERE value IS NOT NULL AND value <> '' AND strpos(lower(value), ${needle}) > 0
      ORDER BY value
      LIMIT ${MAX_RECEIPT_VALUES + 1}`;
    return {
      items: rows.slice(0, MAX_RECEIPT_VALUES).map((row) => row.value),
      truncated: rows.length > MAX_RECEIPT_VALUES,
    };
  }
}

function recent(column: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`SELECT ${column} FROM (
    SELECT * FROM receipts ORDER BY received_at DESC, id DESC LIMIT ${RECENT_RECEIPTS}
  ) newest`;
}

function sourceOf(field: ReceiptValueField): Prisma.Sql {
  switch (field) {
    case 'gateway':
      return Prisma.sql`SELECT name FROM resources WHERE kind = 'Gateway'
        UNION ALL ${recent(Prisma.sql`gateway`)}`;
    case 'policy':
      return Prisma.sql`SELECT name FROM resources WHERE kind = 'MediationPolicy'
        UNION ALL SELECT DISTINCT name FROM policy_revisions`;
    case 'rule':
      return Prisma.sql`SELECT DISTINCT revision.name || '/' || (rule ->> 'id')
        FROM policy_revisions revision,
          jsonb_array_elements(CASE jsonb_typeof(revision.spec::jsonb -> 'rules')
            WHEN 'array' THEN revision.spec::jsonb -> 'rules' ELSE '[]'::jsonb END) rule`;
    case 'identity':
      return Prisma.sql`SELECT name FROM resources WHERE kind = 'Identity'
        UNION ALL ${recent(Prisma.sql`unnest(ARRAY[identity_human, identity_service])`)}`;
    case 'tool':
      return Prisma.sql`SELECT name FROM receipt_tool_names`;
  }
}
