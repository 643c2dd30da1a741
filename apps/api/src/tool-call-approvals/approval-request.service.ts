import { Inject, Injectable } from '@nestjs/common';
import type { ToolCallApprovalRequest } from '@toolgate/contract';
import { AlreadyExistsError, type GatewaySpec, ValidationError } from '@toolgate/core';
import { StatusError } from '../common/api-errors.ts';
import type { Actor } from '../resources/kind-hooks.ts';
import { ResourceStore } from '../resources/resource-store.service.ts';
import type { StoredObject } from '../resources/stored-object.ts';
import { reopenedStatus, stateAt } from './approval-transitions.ts';
import { scrubApprovalArguments } from './scrub-arguments.ts';

const KIND = 'ToolCallApproval';

/**
 * A gateway asking for a decision on a call it withheld. Idempotent, and cheap to repeat: an
 * agent retrying a withheld call in a loop makes its gateway ask again each time, so an open
 * request (pending, or decided and still standing) is answered from a read, without a write.
 * Only an absent or expired approval is written: created, or re-opened as pending.
 */
@Injectable()
export class ApprovalRequestService {
  constructor(@Inject(ResourceStore) private readonly store: ResourceStore) {}

  async request(
    name: string,
    body: ToolCallApprovalRequest,
    actor: Actor,
  ): Promise<{ object: StoredObject; created: boolean }> {
    await this.requireOwnGateway(body.spec.gateway, actor);
    if (body.spec.actionId !== name) {
      throw new ValidationError(KIND, [
        { field: 'spec.actionId', message: `must equal the name in the URL ("${name}")` },
      ]);
    }
    const spec = { ...body.spec, arguments: scrubApprovalArguments(body.spec.arguments) };
    const existing = await this.store.find(KIND, name);
    if (existing === undefined) {
      try {
        const object = await this.store.create(KIND, { metadata: { name }, spec }, actor);
        return { object, created: true };
      } catch (error) {
        // Another gateway (or replica) created it between our read and our write: theirs stands.
        if (!(error instanceof AlreadyExistsError)) throw error;
        return { object: await this.store.get(KIND, name), created: false };
      }
    }
    if (stateAt(existing, new Date()) !== 'expired') return { object: existing, created: false };
    const { object } = await this.store.transition(KIND, name, actor, 'reopen', (current) => {
      const now = new Date();
      // Re-checked under the lock: a concurrent request may have re-opened it already.
      if (stateAt(current, now) !== 'expired') return undefined;
      return { spec, status: reopenedStatus(current, spec, actor.name, now) };
    });
    return { object, created: false };
  }

  /** The caller must be the identity of the Gateway the request names (`spec.gateway`). */
  private async requireOwnGateway(gateway: string, actor: Actor): Promise<void> {
    const record = await this.store.find('Gateway', gateway);
    if ((record?.spec as GatewaySpec | undefined)?.identity !== actor.name) {
      throw StatusError.of(
        'Forbidden',
        `${actor.name} may only request approvals for its own gateway (spec.gateway "${gateway}")`,
        [{ field: 'spec.gateway', message: `is not a Gateway whose identity is ${actor.name}` }],
      );
    }
  }
}
