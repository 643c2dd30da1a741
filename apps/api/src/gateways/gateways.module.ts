import { Module } from '@nestjs/common';
import { createResourceController } from '../resources/resource-controller.factory.ts';
import { BundleController } from './bundle.controller.ts';
import { BundleService } from './bundle.service.ts';
import { GatewayHooks } from './gateway.hooks.ts';
import { GatewayStatusHistoryRepository } from './gateway-status-history.repository.ts';
import { GatewaySyncController } from './gateway-sync.controller.ts';
import { GatewaySyncService } from './gateway-sync.service.ts';

@Module({
  controllers: [createResourceController('Gateway'), BundleController, GatewaySyncController],
  providers: [GatewayHooks, BundleService, GatewaySyncService, GatewayStatusHistoryRepository],
  exports: [BundleService, GatewaySyncService],
})
export class GatewaysModule {}
