import { Module } from '@nestjs/common';
import { createResourceController } from '../resources/resource-controller.factory.ts';
import { ApprovalDecisionService } from './approval-decision.service.ts';
import { ApprovalExpiryRepository } from './approval-expiry.repository.ts';
import { ApprovalExpirySweeper } from './approval-expiry.sweeper.ts';
import { ApprovalRequestService } from './approval-request.service.ts';
import { ToolCallApprovalHooks } from './tool-call-approval.hooks.ts';
import { ToolCallApprovalsController } from './tool-call-approvals.controller.ts';

/** Human decisions on withheld tool calls: gateways request, operators decide, time expires. */
@Module({
  controllers: [
    createResourceController('ToolCallApproval', ['list', 'get', 'delete']),
    ToolCallApprovalsController,
  ],
  providers: [
    ToolCallApprovalHooks,
    ApprovalRequestService,
    ApprovalDecisionService,
    ApprovalExpiryRepository,
    ApprovalExpirySweeper,
  ],
})
export class ToolCallApprovalsModule {}
