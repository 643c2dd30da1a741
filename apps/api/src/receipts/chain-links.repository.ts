import { Inject, Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.ts';

/** The stored receipt row of a link: every column an auditor can be shown, and its body. */
export interface StoredReceiptRow {
  gateway: string;
  seq: bigint;
  surface: string;
  model: string;
  stream: boolean;
  status: number;
  outcome: string;
  identityHuman: string | null;
  identityService: string | null;
  identitySession: string | null;
  binding: string;
  tools: string[] | null;
  rules: string[] | null;
  policies: string[] | null;
  capabilities: string[] | null;
  /** From the receipt's `receipt_stats` row: all null when it has none. */
  outcomeClass: string | null;
  calledTools: string[] | null;
  blockedCalls: string[] | null;
  withheldCalls: string[] | null;
  mediationMs: number | null;
  upstreamMs: number | null;
  prevHash: string | null;
  hash: string;
  toolSetHash: string | null;
  body: unknown;
  receivedAt: Date;
  /**
   * Whether `received_at` is the body's `timestamps.received_at` as ingest stored it (the same
   * cast, so the same rounding); null when the body has no time PostgreSQL can read.
   */
  receivedAtMatches: boolean | null;
}

/** One link of a gateway's chain (`receipt_links`), with its stored receipt if there is one. */
export interface ChainLinkRow {
  seq: bigint;
  id: string;
  /** The hash recorded in the link when the receipt was ingested. */
  hash: string;
  /** Set when the link stands in for a receipt the gateway quarantined (no receipt row). */
  standIn: StandInLink | null;
  receipt: StoredReceiptRow | null;
}

/** The parts of a stored stand-in (`receipt_links.stand_in`) verify reads; unvalidated. */
export interface StandInLink {
  hash?: unknown;
  prev_hash?: unknown;
  held?: { reason?: unknown };
}

type FlatRow = Omit<ChainLinkRow, 'receipt'> & { stored: boolean } & {
  [K in keyof StoredReceiptRow as `r_${K}`]: StoredReceiptRow[K];
};

/**
 * Reads for chain verification: a gateway's links in seq order with their receipt rows (one
 * statement per page), and the lookups verify makes only once it found something.
 */
@Injectable()
export class ChainLinksRepository {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  /**
   * Up to `limit` links of a gateway after `afterSeq`, in seq order. Driven by `receipt_links`
   * (a left join), so a link whose receipt row is gone is seen, not skipped.
   */
  async page(gateway: string, afterSeq: bigint, limit: number): Promise<ChainLinkRow[]> {
    const rows = await this.prisma.client.$queryRaw<FlatRow[]>`
      SELECT l.seq, l.id, l.hash, l.stand_in AS "standIn", r.id IS NOT NULL AS stored,
        r.gateway AS r_gateway, r.seq AS r_seq, r.surface AS r_surface, r.model AS r_model,
        r.stream AS r_stream, r.status AS r_status, r.outcome AS r_outcome,
        r.identity_human AS "r_identityHuman", r.identity_service AS "r_identityService",
        r.identity_session AS "r_identitySession", r.binding AS r_binding, r.tools AS r_tools,
        r.rules AS r_rules, r.policies AS r_policies, r.capabilities AS r_capabilities,
        s.outcome_class AS "r_outcomeClass",
        s.called_tools AS "r_calledTools", s.blocked_calls AS "r_blockedCalls",
        s.withheld_calls AS "r_withheldCalls", s.mediation_ms AS "r_mediationMs",
        s.upstream_ms AS "r_upstreamMs",
        r.prev_hash AS "r_prevHash",
        r.hash AS r_hash, r.tool_set_hash AS "r_toolSetHash", r.body AS r_body,
        r.received_at AS "r_receivedAt",
        CASE WHEN pg_input_is_valid(r.body -> 'timestamps' ->> 'received_at', 'timestamptz')
          THEN (r.body -> 'timestamps' ->> 'received_at')::timestamptz(3) = r.received_at
        END AS "r_receivedAtMatches"
      FROM (
        SELECT id, seq, received_at, hash, stand_in FROM receipt_links
        WHERE gateway = ${gateway} AND seq > ${afterSeq}
        ORDER BY seq
        LIMIT ${limit}
      ) l
      LEFT JOIN receipts r ON r.id = l.id AND r.received_at = l.received_at
      LEFT JOIN receipt_stats s ON s.id = r.id
      ORDER BY l.seq`;
    return rows.map(toLink);
  }

  /**
   * A link's receipt row found by id alone: the row is there, but its `received_at` is no
   * longer the link's (the page joins on both, the partition key included).
   */
  async receivedAtOf(id: string): Promise<Date | undefined> {
    const [row] = await this.prisma.client.$queryRaw<Array<{ receivedAt: Date }>>`
      SELECT received_at AS "receivedAt" FROM receipts WHERE id = ${id} LIMIT 1`;
    return row?.receivedAt;
  }

  /** The link of a gateway's chain with this hash, if any (read once, when a link breaks). */
  async linkWithHash(
    gateway: string,
    hash: string,
  ): Promise<{ seq: bigint; id: string } | undefined> {
    const [row] = await this.prisma.client.$queryRaw<Array<{ seq: bigint; id: string }>>`
      SELECT seq, id FROM receipt_links WHERE gateway = ${gateway} AND hash = ${hash}
      ORDER BY seq LIMIT 1`;
    return row;
  }

  /** Stored tool sets by hash, as stored (not validated: verify hashes them). */
  async toolSets(hashes: ReadonlyArray<string>): Promise<Map<string, unknown>> {
    if (hashes.length === 0) return new Map();
    const rows = await this.prisma.client.$queryRaw<Array<{ hash: string; body: unknown }>>`
      SELECT hash, body FROM tool_sets WHERE hash = ANY(${[...hashes]}::text[])`;
    return new Map(rows.map((row) => [row.hash, row.body]));
  }
}

function toLink(row: FlatRow): ChainLinkRow {
  const link = { seq: row.seq, id: row.id, hash: row.hash, standIn: row.standIn };
  if (!row.stored) return { ...link, receipt: null };
  return {
    ...link,
    receipt: {
      gateway: row.r_gateway,
      seq: row.r_seq,
      surface: row.r_surface,
      model: row.r_model,
      stream: row.r_stream,
      status: row.r_status,
      outcome: row.r_outcome,
      identityHuman: row.r_identityHuman,
      identityService: row.r_identityService,
      identitySession: row.r_identitySession,
      binding: row.r_binding,
      tools: row.r_tools,
      rules: row.r_rules,
      policies: row.r_policies,
      capabilities: row.r_capabilities,
      outcomeClass: row.r_outcomeClass,
      calledTools: row.r_calledTools,
      blockedCalls: row.r_blockedCalls,
      withheldCalls: row.r_withheldCalls,
      mediationMs: row.r_mediationMs,
      upstreamMs: row.r_upstreamMs,
      prevHash: row.r_prevHash,
      hash: row.r_hash,
      toolSetHash: row.r_toolSetHash,
      body: row.r_body,
      receivedAt: row.r_receivedAt,
      receivedAtMatches: row.r_receivedAtMatches,
    },
  };
}
