import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { ToolCallApprovalSpec } from '@toolgate/core';
import { type KindHooks, KindHooksRegistry } from '../resources/kind-hooks.ts';
import type { StoredObject } from '../resources/stored-object.ts';
import { pendingStatus } from './approval-transitions.ts';

/** A new approval starts pending: requested now, open for the rule's TTL. */
@Injectable()
export class ToolCallApprovalHooks implements KindHooks, OnModuleInit {
  readonly kind = 'ToolCallApproval';

  constructor(@Inject(KindHooksRegistry) private readonly registry: KindHooksRegistry) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  statusFor(object: StoredObject): Record<string, unknown> {
    return pendingStatus(object.spec as ToolCallApprovalSpec, new Date());
  }
}
