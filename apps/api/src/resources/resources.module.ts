import { Global, Module } from '@nestjs/common';
import { AuditRepository } from '../audit/audit.repository.ts';
import { KindHooksRegistry } from './kind-hooks.ts';
import { ResourceRepository } from './resource.repository.ts';
import { ResourceStore } from './resource-store.service.ts';
import { SeedService } from './seed.service.ts';
import { WatchService } from './watch.service.ts';

/** The generic Kubernetes-style object store every kind module builds on. */
@Global()
@Module({
  providers: [
    ResourceRepository,
    ResourceStore,
    KindHooksRegistry,
    WatchService,
    AuditRepository,
    SeedService,
  ],
  exports: [
    ResourceRepository,
    ResourceStore,
    KindHooksRegistry,
    WatchService,
    AuditRepository,
    SeedService,
  ],
})
export class ResourcesModule {}
