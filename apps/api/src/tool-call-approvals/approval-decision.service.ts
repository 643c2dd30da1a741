import { Inject, Injectable } from '@nestjs/common';
import { type ApprovalDecisionInput, ConflictError } from '@toolgate/core';
import type { Actor } from '../resources/kind-hooks.ts';
import { ResourceStore } from '../resources/resource-store.service.ts';
import type { StoredObject } from '../resources/stored-object.ts';
import { decidedStatus, stateAt } from './approval-transitions.ts';

const KIND = 'ToolCallApproval';

/**
 * An operator's decision on a pending approval. Decided once: a second decision (or one on an
 * expired request) is a 409, so two operators clicking at once cannot overwrite each other.
 */
@Injectable()
export class ApprovalDecisionService {
  constructor(@Inject(ResourceStore) private readonly store: ResourceStore) {}

  async decide(name: string, input: ApprovalDecisionInput, actor: Actor): Promise<StoredObject> {
    const verb = input.decision === 'Approve' ? 'approve' : 'deny';
    const { object } = await this.store.transition(KIND, name, actor, verb, (current) => {
      const now = new Date();
      const state = stateAt(current, now);
      if (state === 'expired') {
        throw new ConflictError(KIND, name, 'expired: the agent retries the call to ask again');
      }
      if (state !== 'pending') {
        const by = (current.status as { decidedBy?: string }).decidedBy;
        throw new ConflictError(KIND, name, `already ${state}${by ? ` by ${by}` : ''}`);
      }
      return { status: decidedStatus(current, input, actor.name, now) };
    });
    return object;
  }
}
