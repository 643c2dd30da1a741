import { Inject, Injectable } from '@nestjs/common';
import {
  type CalledTool,
  MAX_SUMMARY_CALLS,
  RECEIPT_COUNT_CAP,
  type ReceiptFilterQuery,
  type ReceiptQuery,
  type ReceiptSummary,
} from '@toolgate/contract';
import { BadRequestError, NotFoundError, type Receipt } from '@toolgate/core';
import {
  type ReceiptFilter,
  ReceiptListRepository,
  type ReceiptSummaryRow,
} from './receipt-list.repository.ts';
import { ReceiptsRepository } from './receipts.repository.ts';

const DEFAULT_LIMIT = 50;
/**
 * Most tool names one `toolContains` may stand for: each is a key the GIN index looks up. A
 * substring in more names than this is too vague to search by (the message says so).
 */
export const MAX_TOOL_CONTAINS_NAMES = 500;

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
    const order = query.order ?? 'newest';
    const filter: ReceiptFilter = {
      ...(await this.filterOf(query)),
      order,
      ...(query.continue !== undefined ? { before: decodeContinue(query.continue, order) } : {}),
    };
    // One row more than asked tells whether another page exists, so the last page carries no
    // token that would only lead to an empty page.
    const rows = await this.lists.list(filter, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const responses = await this.lists.responsesOf(page);
    return {
      items: page.map((row) => toSummary(row, responses.get(row.id))),
      metadata: rows.length > limit && last ? { continue: encodeContinue(last, order) } : {},
    };
  }

  async count(query: ReceiptFilterQuery): Promise<{ count: number; capped: boolean }> {
    return this.lists.count(await this.filterOf(query), RECEIPT_COUNT_CAP);
  }

  /** The list filters of a query, `toolContains` resolved to the tool names it matches. */
  private async filterOf(query: ReceiptFilterQuery): Promise<ReceiptFilter> {
    const filter = filterOf(query);
    if (query.toolContains === undefined) return filter;
    const names = await this.lists.toolNamesContaining(
      query.toolContains,
      MAX_TOOL_CONTAINS_NAMES + 1,
    );
    if (names.length > MAX_TOOL_CONTAINS_NAMES) {
      throw new BadRequestError(
        `toolContains: "${query.toolContains}" is in more than ${MAX_TOOL_CONTAINS_NAMES} tool names; type more of the name`,
      );
    }
    return { ...filter, toolNames: names };
  }

  async get(id: string): Promise<{ seq: string; receipt: Receipt }> {
    const found = await this.receipts.find(id);
    if (!found) throw new NotFoundError('Receipt', id);
    return found;
  }
}

/** The list filters of a query, as the repository takes them (no order, no position). */
function filterOf(query: ReceiptFilterQuery): ReceiptFilter {
  return {
    ...(query.gateway !== undefined ? { gateway: query.gateway } : {}),
    ...(query.identity !== undefined ? { identity: query.identity } : {}),
    ...(query.tool !== undefined ? { tool: query.tool } : {}),
    ...(query.rule !== undefined
      ? query.rule.includes('/')
        ? { qualifiedRule: query.rule }
        : { ruleId: query.rule }
      : {}),
    ...(query.policy !== undefined ? { policy: query.policy } : {}),
    ...(query.contract !== undefined ? { capability: query.contract } : {}),
    ...(query.outcome !== undefined ? { outcome: query.outcome } : {}),
    ...(query.surface !== undefined ? { surface: query.surface } : {}),
    ...(query.since !== undefined ? { since: query.since } : {}),
    ...(query.until !== undefined ? { until: query.until } : {}),
  };
}

/**
 * The tools called, from a stored receipt's `response` (validated at ingest, but read here as
 * untyped JSON: a row shows what it can and skips what it cannot read).
 */
export function calledTools(response: unknown): CalledTool[] {
  if (typeof response !== 'object' || response === null) return [];
  const { tool_calls: calls, hosted_tool_events: hosted } = response as {
    tool_calls?: unknown;
    hosted_tool_events?: unknown;
  };
  const result: CalledTool[] = [];
  for (const call of Array.isArray(calls) ? calls : []) {
    const { name, policy_state: state, reason } = (call ?? {}) as Record<string, unknown>;
    if (typeof name !== 'string') continue;
    if (state !== 'allowed' && state !== 'blocked' && state !== 'deferred') continue;
    result.push({ name, state, ...(typeof reason === 'string' ? { reason } : {}) });
  }
  for (const event of Array.isArray(hosted) ? hosted : []) {
    const { name, policy_state: state } = (event ?? {}) as Record<string, unknown>;
    if (typeof name !== 'string') continue;
    if (state !== 'allowed' && state !== 'blocked' && state !== 'opaque') continue;
    result.push({ name, state, hosted: true });
  }
  return result;
}

function toSummary(row: ReceiptSummaryRow, response: unknown): ReceiptSummary {
  const calls = calledTools(response);
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
    calls: calls.slice(0, MAX_SUMMARY_CALLS),
    callCount: calls.length,
    rules: row.rules ?? [],
    policies: row.policies ?? [],
    hash: row.hash,
  };
}

/**
 * Opaque to clients; the position of the last row served and the order it was served in (`o`,
 * for oldest first only, so tokens issued before there was a choice still read as newest).
 */
function encodeContinue(row: ReceiptSummaryRow, order: 'newest' | 'oldest'): string {
  const position = { t: row.receivedAt.toISOString(), id: row.id };
  return Buffer.from(
    JSON.stringify(order === 'oldest' ? { ...position, o: 'oldest' } : position),
  ).toString('base64url');
}

function decodeContinue(
  token: string,
  order: 'newest' | 'oldest',
): { receivedAt: string; id: string } {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      t?: unknown;
      id?: unknown;
      o?: unknown;
    };
    if ((parsed.o ?? 'newest') !== order) {
      // A page in the other order would skip or repeat rows.
      throw new BadRequestError(
        `continue: the token was issued for order=${String(parsed.o ?? 'newest')}`,
      );
    }
    if (
      typeof parsed.t === 'string' &&
      typeof parsed.id === 'string' &&
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(parsed.t) &&
      !Number.isNaN(Date.parse(parsed.t))
    ) {
      return { receivedAt: parsed.t, id: parsed.id };
    }
  } catch (error) {
    if (error instanceof BadRequestError) throw error;
  }
  throw new BadRequestError('continue: not a token this API issued');
}
