import { Controller, Inject, Query } from '@nestjs/common';
import { type OverviewQuery, ROUTES } from '@toolgate/contract';
import { Route } from '../common/route.decorator.ts';
import { OverviewService } from './overview.service.ts';

@Controller()
export class OverviewController {
  constructor(@Inject(OverviewService) private readonly overviews: OverviewService) {}

  @Route('overview.get')
  get(@Query({ schema: ROUTES['overview.get'].query }) query: OverviewQuery) {
    return this.overviews.overview(query);
  }
}
