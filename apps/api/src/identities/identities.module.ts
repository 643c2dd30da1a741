import { Module } from '@nestjs/common';
import { TokenRateLimitGuard } from '../auth/token-rate-limit.guard.ts';
import { createResourceController } from '../resources/resource-controller.factory.ts';
import { BootstrapOperator } from './bootstrap-operator.ts';
import { IdentitiesController } from './identities.controller.ts';
import { IdentityHooks } from './identity.hooks.ts';
import { TokensService } from './tokens.service.ts';

@Module({
  controllers: [createResourceController('Identity'), IdentitiesController],
  providers: [IdentityHooks, TokensService, BootstrapOperator, TokenRateLimitGuard],
  exports: [BootstrapOperator, TokensService],
})
export class IdentitiesModule {}
