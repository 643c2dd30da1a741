import { Module } from '@nestjs/common';
import { createResourceController } from '../resources/resource-controller.factory.ts';
import { BundleController } from './bundle.controller.ts';
import { BundleService } from './bundle.service.ts';
import { GatewayHooks } from './gateway.hooks.ts';

@Module({
  controllers: [createResourceController('Gateway'), BundleController],
  providers: [GatewayHooks, BundleService],
  exports: [BundleService],
})
export class GatewaysModule {}
