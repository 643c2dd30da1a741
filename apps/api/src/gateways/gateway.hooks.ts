import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { type GatewaySpec, type IdentitySpec, ValidationError } from '@toolgate/core';
import type { Tx } from '../database/prisma.service.ts';
import { type KindHooks, KindHooksRegistry } from '../resources/kind-hooks.ts';
import { ResourceRepository } from '../resources/resource.repository.ts';
import type { ObjectInput } from '../resources/stored-object.ts';

/** A Gateway must name an existing Identity with the `gateway` role: that is who may sync it. */
@Injectable()
export class GatewayHooks implements KindHooks, OnModuleInit {
  readonly kind = 'Gateway';

  constructor(
    @Inject(KindHooksRegistry) private readonly registry: KindHooksRegistry,
    @Inject(ResourceRepository) private readonly resources: ResourceRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async validate(input: ObjectInput, _actor: unknown, tx: Tx): Promise<void> {
    const { identity } = input.spec as GatewaySpec;
    const record = await this.resources.find('Identity', identity, tx);
    const roles = (record?.object.spec as IdentitySpec | undefined)?.roles ?? [];
    if (!roles.includes('gateway')) {
      throw new ValidationError('Gateway', [
        {
          field: 'spec.identity',
          message: record
            ? `Identity "${identity}" lacks the gateway role`
            : `Identity "${identity}" does not exist`,
        },
      ]);
    }
  }
}
