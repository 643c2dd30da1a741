import { Inject, Injectable } from '@nestjs/common';
import type { ReceiptQuery, ReceiptSummary } from '@toolgate/contract';
import { BadRequestError, NotFoundError, type Receipt } from '@toolgate/core';
import {
  type ReceiptFilter,
  ReceiptListRepository,
  type ReceiptSummaryRow,
} from './receipt-list.repository.ts';
import { ReceiptsRepository } from './receipts.repository.ts';

const DEFAULT_LIMIT = 50;

/**
 * Receipt history for auditors and the console: filters, newest first, keyset paging on
 * (received_at, id) so a page costs the same on a million rows as on a hundred and rows
 * arriving meanwhile neither shift nor repeat a page.
 */
@Injectable()
export class ReceiptQueryService {
  constructor(
    @Inject(ReceiptListRepository) private readonly lists: ReceiptListRepository,
    @Inject(ReceiptsRepository) private readonly receipts: ReceiptsRepository,
  ) {}

  async list(
    query: ReceiptQuery,
  ): Promise<{ items: ReceiptSummary[]; metadata: { continue?: string } }> {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const filter: ReceiptFilter = {
      ...(query.gateway !== undefined ? { gateway: query.gateway } : {}),
      ...(query.identity !== undefined ? { identity: query.identity } : {}),
      ...(query.tool !== undefined ? { tool: query.tool } : {}),
      ...(query.rule !== undefined
        ? query.rule.includes('/')
          ? { qualifiedRule: query.rule }
          : { ruleId: query.rule }
        : {}),
      ...(query.policy !== undefined ? { policy: query.policy } : {}),
      ...(query.outcome !== undefined ? { outcome: query.outcome } : {}),
      ...(query.surface !== undefined ? { surface: query.surface } : {}),
      ...(query.since !== undefined ? { since: query.since } : {}),
      ...(query.until !== undefined ? { until: query.until } : {}),
      ...(query.continue !== undefined ? { before: decodeContinue(query.continue) } : {}),
    };
    // One row more than asked tells whether another page exists, so the last page carries no
    // token that would only lead to an empty page.
    const rows = await this.lists.list(filter, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map(toSummary),
      metadata: rows.length > limit && last ? { continue: encodeContinue(last) } : {},
    };
  }

  async get(id: string): Promise<{ seq: string; receipt: Receipt }> {
    const found = await this.receipts.find(id);
    if (!found) throw new NotFoundError('Receipt', id);
    return found;
  }
}

function toSummary(row: ReceiptSummaryRow): ReceiptSummary {
  return {
    id: row.id,
    gateway: row.gateway,
    seq: row.seq.toString(),
    receivedAt: row.receivedAt.toISOString(),
    surface: row.surface as ReceiptSummary['surface'],
    model: row.model,
    stream: row.stream,
    status: row.status,
    outcome: row.outcome as ReceiptSummary['outcome'],
    identity: {
      human: row.identityHuman,
      service: row.identityService,
      session: row.identitySession,
      binding: row.binding as ReceiptSummary['identity']['binding'],
    },
    tools: row.tools ?? [],
    rules: row.rules ?? [],
    policies: row.policies ?? [],
    hash: row.hash,
  };
}

/** Opaque to clients; the position of the last row served. */
function encodeContinue(row: ReceiptSummaryRow): string {
  return Buffer.from(JSON.stringify({ t: row.receivedAt.toISOString(), id: row.id })).toString(
    'base64url',
  );
}

function decodeContinue(token: string): { receivedAt: string; id: string } {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      t?: unknown;
      id?: unknown;
    };
    if (
      typeof parsed.t === 'string' &&
      typeof parsed.id === 'string' &&
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(parsed.t) &&
      !Number.isNaN(Date.parse(parsed.t))
    ) {
      return { receivedAt: parsed.t, id: parsed.id };
    }
  } catch {
    // fall through
  }
  throw new BadRequestError('continue: not a token this API issued');
}
