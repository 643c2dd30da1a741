import { Inject, Injectable } from '@nestjs/common';
import type { PolicyRevision, PreviewInput } from '@toolgate/contract';
import { diffJson, type JsonValue, type MediationPolicySpec, NotFoundError } from '@toolgate/core';
import type { Actor } from '../resources/kind-hooks.ts';
import { ResourceStore } from '../resources/resource-store.service.ts';
import type { StoredObject } from '../resources/stored-object.ts';
import { PolicyPreviewService } from './policy-preview.service.ts';
import { PolicyRevisionsRepository } from './policy-revisions.repository.ts';

const KIND = 'MediationPolicy';

/** History, diff and rollback of a MediationPolicy's generations. */
@Injectable()
export class PolicyHistoryService {
  constructor(
    @Inject(ResourceStore) private readonly store: ResourceStore,
    @Inject(PolicyRevisionsRepository) private readonly revisions: PolicyRevisionsRepository,
    @Inject(PolicyPreviewService) private readonly previews: PolicyPreviewService,
  ) {}

  async history(name: string): Promise<PolicyRevision[]> {
    const policy = await this.store.get(KIND, name);
    return this.revisions.list(policy.metadata.uid);
  }

  async revision(name: string, generation: number): Promise<PolicyRevision> {
    const policy = await this.store.get(KIND, name);
    return this.revisionOf(policy, generation);
  }

  async diff(name: string, from: number, to: number, preview?: PreviewInput) {
    const policy = await this.store.get(KIND, name);
    const [a, b] = await Promise.all([this.revisionOf(policy, from), this.revisionOf(policy, to)]);
    const changes = diffJson(a.spec as JsonValue, b.spec as JsonValue);
    if (!preview) return { from: a, to: b, changes };
    const [effectFrom, effectTo] = await Promise.all([
      this.previews.effectOf(a.spec as MediationPolicySpec, preview),
      this.previews.effectOf(b.spec as MediationPolicySpec, preview),
    ]);
    return { from: a, to: b, changes, effect: { from: effectFrom, to: effectTo } };
  }

  /** Like `kubectl rollout undo`: a new generation whose spec is the old one's. */
  async rollback(
    name: string,
    toGeneration: number,
    resourceVersion: string | undefined,
    actor: Actor,
    changeNote?: string,
  ): Promise<StoredObject> {
    const policy = await this.store.get(KIND, name);
    const target = await this.revisionOf(policy, toGeneration);
    return this.store.replace(
      KIND,
      name,
      {
        metadata: {
          name,
          labels: policy.metadata.labels,
          annotations: policy.metadata.annotations,
          resourceVersion: resourceVersion ?? policy.metadata.resourceVersion,
        },
        spec: target.spec,
      },
      actor,
      false,
      'rollback',
      { rollbackOf: toGeneration, ...(changeNote ? { changeNote } : {}) },
    );
  }

  private async revisionOf(policy: StoredObject, generation: number): Promise<PolicyRevision> {
    const revision = await this.revisions.find(policy.metadata.uid, generation);
    if (!revision)
      throw new NotFoundError('PolicyRevision', `${policy.metadata.name}@${generation}`);
    return revision;
  }
}
