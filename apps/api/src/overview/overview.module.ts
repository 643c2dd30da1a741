import { Module } from '@nestjs/common';
import { GatewaysModule } from '../gateways/gateways.module.ts';
import { OverviewController } from './overview.controller.ts';
import { OverviewRepository } from './overview.repository.ts';
import { OverviewService } from './overview.service.ts';

/** The console overview's aggregates over receipts, gateways and approvals. */
@Module({
  imports: [GatewaysModule],
  controllers: [OverviewController],
  providers: [OverviewRepository, OverviewService],
})
export class OverviewModule {}
