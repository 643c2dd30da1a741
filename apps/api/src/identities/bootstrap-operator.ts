import { Inject, Injectable } from '@nestjs/common';
import type { IdentitySpec } from '@toolgate/core';
import { ResourceRepository } from '../resources/resource.repository.ts';
import { ResourceStore } from '../resources/resource-store.service.ts';
import { TokensService } from './tokens.service.ts';

const SYSTEM = { name: 'system:bootstrap', roles: ['operator'] as const };

/**
 * First start: when no identity holds the operator role, creates `admin` (human, operator)
 * and a token for it, returned once so the caller can print it. Later starts return nothing.
 */
@Injectable()
export class BootstrapOperator {
  constructor(
    @Inject(ResourceStore) private readonly store: ResourceStore,
    @Inject(ResourceRepository) private readonly resources: ResourceRepository,
    @Inject(TokensService) private readonly tokens: TokensService,
  ) {}

  async ensureOperator(): Promise<string | undefined> {
    const identities = await this.resources.all('Identity');
    const hasOperator = identities.some((i) =>
      (i.object.spec as IdentitySpec).roles.includes('operator'),
    );
    if (hasOperator) return undefined;
    const name = identities.some((i) => i.object.metadata.name === 'admin')
      ? 'toolgate-admin'
      : 'admin';
    await this.store.create(
      'Identity',
      {
        metadata: { name, labels: { 'toolgate.dev/bootstrap': 'true' } },
        spec: { type: 'human', roles: ['operator'], displayName: 'First operator' },
      },
      SYSTEM,
    );
    const issued = await this.tokens.issue(name, { description: 'created at first start' }, SYSTEM);
    return issued.token;
  }
}
