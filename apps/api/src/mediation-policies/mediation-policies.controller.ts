import { Body, Controller, Inject, Param } from '@nestjs/common';
import { NameParams, type PreviewInput, ROUTES } from '@toolgate/contract';
import type { z } from 'zod';
import { CurrentActor } from '../auth/current-actor.decorator.ts';
import { Route } from '../common/route.decorator.ts';
import type { Actor } from '../resources/kind-hooks.ts';
import { PolicyHistoryService } from './policy-history.service.ts';
import { PolicyPreviewService } from './policy-preview.service.ts';

type RevisionParams = z.infer<NonNullable<(typeof ROUTES)['policies.revision']['params']>>;

/** Policy history, diff, rollback and preview (the CRUD routes come from the resource factory). */
@Controller()
export class MediationPoliciesController {
  constructor(
    @Inject(PolicyHistoryService) private readonly history: PolicyHistoryService,
    @Inject(PolicyPreviewService) private readonly previews: PolicyPreviewService,
  ) {}

  @Route('policies.revisions')
  async revisions(@Param({ schema: NameParams }) params: z.infer<typeof NameParams>) {
    return { items: await this.history.history(params.name) };
  }

  @Route('policies.revision')
  revision(@Param({ schema: ROUTES['policies.revision'].params }) params: RevisionParams) {
    return this.history.revision(params.name, params.generation);
  }

  @Route('policies.diff')
  diff(
    @Param({ schema: NameParams }) params: z.infer<typeof NameParams>,
    @Body({ schema: ROUTES['policies.diff'].body })
    body: { from: number; to: number; preview?: PreviewInput },
  ) {
    return this.history.diff(params.name, body.from, body.to, body.preview);
  }

  @Route('policies.rollback')
  rollback(
    @Param({ schema: NameParams }) params: z.infer<typeof NameParams>,
    @Body({ schema: ROUTES['policies.rollback'].body })
    body: { toGeneration: number; resourceVersion?: string; changeNote?: string },
    @CurrentActor() actor: Actor,
  ) {
    return this.history.rollback(
      params.name,
      body.toGeneration,
      body.resourceVersion,
      actor,
      body.changeNote,
    );
  }

  @Route('policies.preview')
  preview(
    @Body({ schema: ROUTES['policies.preview'].body })
    body: PreviewInput & { spec: unknown; gateway?: string; policyName?: string },
  ) {
    const { spec, gateway, policyName, ...input } = body;
    return this.previews.preview(spec, input, {
      ...(gateway ? { gateway } : {}),
      ...(policyName ? { policyName } : {}),
    });
  }
}
