import { Inject, Injectable } from '@nestjs/common';
import { SEED_CAPABILITY_CONTRACTS, SEED_PROVIDER_PROFILES } from '@toolgate/core';
import { ResourceRepository } from './resource.repository.ts';
import { ResourceStore } from './resource-store.service.ts';

const SEEDER = { name: 'system:seed', roles: ['operator'] as const };

/**
 * Creates the six capability contracts and the provider profiles when missing. Existing ones
 * are left alone: operators may have edited them.
 */
@Injectable()
export class SeedService {
  constructor(
    @Inject(ResourceStore) private readonly store: ResourceStore,
    @Inject(ResourceRepository) private readonly resources: ResourceRepository,
  ) {}

  async ensureSeeded(): Promise<number> {
    let created = 0;
    for (const seed of [...SEED_CAPABILITY_CONTRACTS, ...SEED_PROVIDER_PROFILES]) {
      if (await this.resources.find(seed.kind, seed.metadata.name)) continue;
      await this.store.create(
        seed.kind,
        { metadata: { name: seed.metadata.name, labels: seed.metadata.labels }, spec: seed.spec },
        SEEDER,
      );
      created++;
    }
    return created;
  }
}
