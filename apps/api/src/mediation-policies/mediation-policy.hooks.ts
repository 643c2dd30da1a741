import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { type MediationPolicySpec, ValidationError } from '@toolgate/core';
import {
  type Actor,
  type KindHooks,
  KindHooksRegistry,
  type WriteContext,
} from '../resources/kind-hooks.ts';
import type { ObjectInput, StoredObject } from '../resources/stored-object.ts';
import { PolicyRevisionsRepository } from './policy-revisions.repository.ts';

/**
 * MediationPolicy on top of the generic store: every spec change is kept as an immutable
 * revision with its canonical hash; `mutate` and `execute` modes are accepted from operators
 * only; the API, as the policy's controller, reports it Accepted in its status.
 */
@Injectable()
export class MediationPolicyHooks implements KindHooks, OnModuleInit {
  readonly kind = 'MediationPolicy';

  constructor(
    @Inject(KindHooksRegistry) private readonly registry: KindHooksRegistry,
    @Inject(PolicyRevisionsRepository) private readonly revisions: PolicyRevisionsRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async validate(input: ObjectInput, actor: Actor): Promise<void> {
    const { mode } = input.spec as MediationPolicySpec;
    if ((mode === 'mutate' || mode === 'execute') && !actor.roles.includes('operator')) {
      throw new ValidationError('MediationPolicy', [
        { field: 'spec.mode', message: `mode "${mode}" is accepted only from operators` },
      ]);
    }
  }

  statusFor(object: StoredObject, specHash: string): Record<string, unknown> {
    return {
      observedGeneration: object.metadata.generation,
      revisionHash: specHash,
      conditions: [
        {
          type: 'Accepted',
          status: 'True',
          reason: 'Valid',
          message: `generation ${object.metadata.generation} is valid and in effect`,
          lastTransitionTime: new Date().toISOString(),
          observedGeneration: object.metadata.generation,
        },
      ],
    };
  }

  async afterWrite(context: WriteContext): Promise<void> {
    const { after } = context;
    if (!after || !context.specChanged) return;
    await this.revisions.insert(context.tx, {
      policyUid: after.metadata.uid,
      name: after.metadata.name,
      generation: after.metadata.generation,
      spec: after.spec,
      hash: String(after.status.revisionHash),
      author: context.actor.name,
      ...context.extras,
    });
  }
}
