import { Body, Controller, Inject, Param, Res } from '@nestjs/common';
import { NameParams, ToolCallApprovalRequest } from '@toolgate/contract';
import { ApprovalDecisionInput } from '@toolgate/core';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { CurrentActor } from '../auth/current-actor.decorator.ts';
import { Route } from '../common/route.decorator.ts';
import type { Actor } from '../resources/kind-hooks.ts';
import { ApprovalDecisionService } from './approval-decision.service.ts';
import { ApprovalRequestService } from './approval-request.service.ts';

@Controller()
export class ToolCallApprovalsController {
  constructor(
    @Inject(ApprovalRequestService) private readonly requests: ApprovalRequestService,
    @Inject(ApprovalDecisionService) private readonly decisions: ApprovalDecisionService,
  ) {}

  @Route('toolCallApprovals.request')
  async request(
    @Param({ schema: NameParams }) params: z.infer<typeof NameParams>,
    @Body({ schema: ToolCallApprovalRequest }) body: ToolCallApprovalRequest,
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { object, created } = await this.requests.request(params.name, body, actor);
    if (!created) reply.status(200);
    return object;
  }

  @Route('toolCallApprovals.decide')
  decide(
    @Param({ schema: NameParams }) params: z.infer<typeof NameParams>,
    @Body({ schema: ApprovalDecisionInput }) body: ApprovalDecisionInput,
    @CurrentActor() actor: Actor,
  ) {
    return this.decisions.decide(params.name, body, actor);
  }
}
