import { Module } from '@nestjs/common';
import { GatewaysModule } from '../gateways/gateways.module.ts';
import { ReceiptsModule } from '../receipts/receipts.module.ts';
import { createResourceController } from '../resources/resource-controller.factory.ts';
import { MediationPoliciesController } from './mediation-policies.controller.ts';
import { MediationPolicyHooks } from './mediation-policy.hooks.ts';
import { PolicyHistoryService } from './policy-history.service.ts';
import { PolicyPreviewService } from './policy-preview.service.ts';
import { PolicyRevisionsRepository } from './policy-revisions.repository.ts';

@Module({
  imports: [ReceiptsModule, GatewaysModule],
  controllers: [createResourceController('MediationPolicy'), MediationPoliciesController],
  providers: [
    PolicyRevisionsRepository,
    MediationPolicyHooks,
    PolicyHistoryService,
    PolicyPreviewService,
  ],
})
export class MediationPoliciesModule {}
