import { Controller, Inject, Query } from '@nestjs/common';
import { type AuditQuery, ROUTES } from '@toolgate/contract';
import { BadRequestError } from '@toolgate/core';
import { Route } from '../common/route.decorator.ts';
import { AuditRepository } from './audit.repository.ts';

const PAGE = 100;

@Controller()
export class AuditController {
  constructor(@Inject(AuditRepository) private readonly audit: AuditRepository) {}

  @Route('audit.list')
  async list(
    @Query({ schema: ROUTES['audit.list'].query })
    query: AuditQuery,
  ) {
    const limit = query.limit === undefined ? PAGE : Number(query.limit);
    let beforeId: bigint | undefined;
    if (query.continue !== undefined) {
      if (!/^\d{1,19}$/.test(query.continue)) {
        throw new BadRequestError('continue: not a token this API issued');
      }
      beforeId = BigInt(query.continue);
    }
    const items = await this.audit.list({
      ...(query.kind ? { kind: query.kind } : {}),
      ...(query.name ? { name: query.name } : {}),
      ...(query.actor ? { actor: query.actor } : {}),
      ...(query.since ? { since: new Date(query.since) } : {}),
      ...(query.until ? { until: new Date(query.until) } : {}),
      ...(beforeId !== undefined ? { beforeId } : {}),
      limit,
    });
    const last = items.at(-1);
    return { items, metadata: items.length === limit && last ? { continue: last.id } : {} };
  }
}
