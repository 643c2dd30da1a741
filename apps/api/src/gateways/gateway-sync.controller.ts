import { Controller, Inject, Param, Query } from '@nestjs/common';
import { NameParams, ROUTES } from '@toolgate/contract';
import type { z } from 'zod';
import { Route } from '../common/route.decorator.ts';
import { GatewaySyncService } from './gateway-sync.service.ts';

type HistoryQuery = z.infer<NonNullable<(typeof ROUTES)['gatewaySync.history']['query']>>;

@Controller()
export class GatewaySyncController {
  constructor(@Inject(GatewaySyncService) private readonly sync: GatewaySyncService) {}

  @Route('gatewaySync.list')
  async list() {
    return { items: await this.sync.list() };
  }

  @Route('gatewaySync.history')
  history(
    @Param({ schema: NameParams }) params: z.infer<typeof NameParams>,
    @Query({ schema: ROUTES['gatewaySync.history'].query }) query: HistoryQuery,
  ) {
    return this.sync.syncHistory(
      params.name,
      query.limit === undefined ? undefined : Number(query.limit),
    );
  }
}
