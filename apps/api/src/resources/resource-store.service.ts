import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AlreadyExistsError,
  API_VERSION,
  BadRequestError,
  ConflictError,
  hashCanonical,
  type LabelSelector,
  NotFoundError,
  parseLabelSelector,
} from '@toolgate/core';
import { AuditRepository } from '../audit/audit.repository.ts';
import { ChangeNotifier } from '../database/change-notifier.ts';
import { API_ENV } from '../database/database.tokens.ts';
import { PrismaService, type Tx } from '../database/prisma.service.ts';
import type { ApiEnv } from '../env.ts';
import { type Actor, KindHooksRegistry, type WriteExtras } from './kind-hooks.ts';
import { ResourceRepository } from './resource.repository.ts';
import type { ObjectInput, StoredObject } from './stored-object.ts';

export interface ListResult {
  resourceVersion: string;
  items: StoredObject[];
  continue?: string;
}

/** Thrown inside a dry-run transaction to roll it back while keeping the would-be result. */
class DryRunRollback<T> {
  constructor(readonly result: T) {}
}

/**
 * Kubernetes object semantics for every kind: uid, generation (bumped on spec changes only),
 * resourceVersion (a global counter; a stale one is a 409), watch events, audit entries and
 * change notifications — all in one transaction, so a failed write leaves nothing behind.
 * `dryRun` runs the whole write, checks included, and rolls it back.
 */
@Injectable()
export class ResourceStore {
  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(ResourceRepository) private readonly repo: ResourceRepository,
    @Inject(AuditRepository) private readonly audit: AuditRepository,
    @Inject(ChangeNotifier) private readonly notifier: ChangeNotifier,
    @Inject(KindHooksRegistry) private readonly hooks: KindHooksRegistry,
    @Inject(API_ENV) private readonly env: ApiEnv,
  ) {}

  async get(kind: string, name: string): Promise<StoredObject> {
    const record = await this.repo.find(kind, name);
    if (!record) throw new NotFoundError(kind, name);
    const [object] = await this.derive(kind, [record.object]);
    return object as StoredObject;
  }

  async find(kind: string, name: string): Promise<StoredObject | undefined> {
    return (await this.repo.find(kind, name))?.object;
  }

  async list(
    kind: string,
    query: { labelSelector?: string; limit?: number; continue?: string },
  ): Promise<ListResult> {
    const selector: LabelSelector = query.labelSelector
      ? parseLabelSelector(query.labelSelector)
      : {};
    const limit = query.limit ?? 500;
    const resourceVersion = (await this.repo.currentResourceVersion()).toString();
    const afterName = query.continue === undefined ? undefined : decodeContinue(query.continue);
    const records = await this.repo.list(kind, {
      selector,
      limit,
      ...(afterName ? { afterName } : {}),
    });
    const items = await this.derive(
      kind,
      records.map((r) => r.object),
    );
    const last = items.at(-1);
    return {
      resourceVersion,
      items,
      ...(items.length === limit && last ? { continue: encodeContinue(last.metadata.name) } : {}),
    };
  }

  create(
    kind: string,
    input: ObjectInput,
    actor: Actor,
    dryRun = false,
    extras: WriteExtras = {},
  ): Promise<StoredObject> {
    return this.write(dryRun, async (tx) => {
      const hooks = this.hooks.get(kind);
      await hooks?.validate?.(input, actor, tx);
      const { name } = input.metadata;
      if (await this.repo.find(kind, name, tx)) throw new AlreadyExistsError(kind, name);
      const specHash = hashCanonical(input.spec);
      const object: StoredObject = {
        apiVersion: API_VERSION,
        kind,
        metadata: {
          name,
          uid: randomUUID(),
          labels: input.metadata.labels ?? {},
          annotations: input.metadata.annotations ?? {},
          generation: 1,
          resourceVersion: (await this.repo.nextResourceVersion(tx)).toString(),
          creationTimestamp: new Date().toISOString(),
        },
        spec: input.spec,
        status: {},
      };
      object.status = hooks?.statusFor?.(object, specHash) ?? {};
      await this.repo.insert(tx, object, specHash);
      await this.committed(tx, 'ADDED', actor, undefined, object, true, extras);
      return object;
    }).catch((error) => {
      // Two creates racing past the existence check: the unique index decides.
      if ((error as { code?: string }).code === 'P2002') {
        throw new AlreadyExistsError(kind, input.metadata.name);
      }
      throw error;
    });
  }

  replace(
    kind: string,
    name: string,
    input: ObjectInput,
    actor: Actor,
    dryRun = false,
    verb = 'update',
    extras: WriteExtras = {},
  ): Promise<StoredObject> {
    if (input.metadata.name !== name) {
      throw new BadRequestError(
        `metadata.name "${input.metadata.name}" does not match the URL ("${name}")`,
      );
    }
    return this.write(dryRun, async (tx) => {
      const hooks = this.hooks.get(kind);
      const current = await this.lockForWrite(tx, kind, name, input.metadata.resourceVersion);
      await hooks?.validate?.(input, actor, tx);
      const specHash = hashCanonical(input.spec);
      const specChanged = specHash !== current.specHash;
      const labels = input.metadata.labels ?? {};
      const annotations = input.metadata.annotations ?? {};
      const before = current.object;
      const metadataChanged =
        hashCanonical([labels, annotations]) !==
        hashCanonical([before.metadata.labels, before.metadata.annotations]);
      if (!specChanged && !metadataChanged) return before;
      const object: StoredObject = {
        ...before,
        metadata: {
          ...before.metadata,
          labels,
          annotations,
          generation: before.metadata.generation + (specChanged ? 1 : 0),
          resourceVersion: (await this.repo.nextResourceVersion(tx)).toString(),
        },
        spec: input.spec,
      };
      if (specChanged && hooks?.statusFor) object.status = hooks.statusFor(object, specHash);
      await this.repo.update(tx, object, specHash);
      await this.committed(tx, 'MODIFIED', actor, before, object, specChanged, extras, verb);
      return object;
    });
  }

  replaceStatus(
    kind: string,
    name: string,
    status: Record<string, unknown>,
    resourceVersion: string | undefined,
    actor: Actor,
    dryRun = false,
  ): Promise<StoredObject> {
    return this.write(dryRun, async (tx) => {
      const current = await this.lockForWrite(tx, kind, name, resourceVersion);
      const before = current.object;
      const object: StoredObject = {
        ...before,
        metadata: {
          ...before.metadata,
          resourceVersion: (await this.repo.nextResourceVersion(tx)).toString(),
        },
        status,
      };
      await this.repo.update(tx, object, current.specHash);
      await this.committed(tx, 'MODIFIED', actor, before, object, false, {}, 'update-status');
      return object;
    });
  }

  /**
   * A change the API decides itself (a state transition), made under the row lock so concurrent
   * callers and API replicas queue up and each sees the previous one's result: `change` reads the
   * current object and returns its new spec and/or status, or `undefined` to write nothing (the
   * transition no longer applies). What it throws rolls the transaction back. `verb` names the
   * transition in the audit log.
   */
  transition(
    kind: string,
    name: string,
    actor: Actor,
    verb: string,
    change: (
      current: StoredObject,
    ) => { spec?: unknown; status: Record<string, unknown> } | undefined,
  ): Promise<{ object: StoredObject; written: boolean }> {
    return this.write(false, async (tx) => {
      const current = await this.lockForWrite(tx, kind, name, undefined);
      const before = current.object;
      const next = change(before);
      if (next === undefined) return { object: before, written: false };
      const specHash = next.spec === undefined ? current.specHash : hashCanonical(next.spec);
      const specChanged = specHash !== current.specHash;
      const object: StoredObject = {
        ...before,
        metadata: {
          ...before.metadata,
          generation: before.metadata.generation + (specChanged ? 1 : 0),
          resourceVersion: (await this.repo.nextResourceVersion(tx)).toString(),
        },
        spec: next.spec ?? before.spec,
        status: next.status,
      };
      await this.repo.update(tx, object, specHash);
      await this.committed(
        tx,
        'MODIFIED',
        actor,
        before,
        object,
        specChanged,
        {},
        verb,
        !specChanged,
      );
      return { object, written: true };
    });
  }

  /** Deletes the object; with `expectedVersion`, only that version of it (else ConflictError). */
  delete(
    kind: string,
    name: string,
    actor: Actor,
    dryRun = false,
    expectedVersion?: string,
  ): Promise<StoredObject> {
    return this.write(dryRun, async (tx) => {
      const current = await this.lockForWrite(tx, kind, name, expectedVersion);
      const object: StoredObject = {
        ...current.object,
        metadata: {
          ...current.object.metadata,
          resourceVersion: (await this.repo.nextResourceVersion(tx)).toString(),
        },
      };
      await this.repo.remove(tx, object.metadata.uid);
      await this.committed(tx, 'DELETED', actor, current.object, object, false, {});
      return object;
    });
  }

  /** Adds the status a kind derives at read time (see KindHooks.withDerivedStatus). */
  private derive(kind: string, objects: StoredObject[]): Promise<StoredObject[]> {
    const hooks = this.hooks.get(kind);
    if (!hooks?.withDerivedStatus || objects.length === 0) return Promise.resolve(objects);
    return hooks.withDerivedStatus(objects, new Date());
  }

  /**
   * Runs `fn` in a transaction; once it has committed, this replica's waiters hear of the
   * changes it announced (other replicas through NOTIFY).
   */
  async inTransaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    let used: Tx | undefined;
    const result = await this.prisma.client.$transaction(
      (tx) => {
        used = tx;
        return fn(tx);
      },
      { timeout: 15_000 },
    );
    if (used) this.notifier.committed(used);
    return result;
  }

  /** Runs `fn` in a transaction; for a dry run, rolls it back and returns what it produced. */
  private async write<T>(dryRun: boolean, fn: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await this.inTransaction(async (tx) => {
        const result = await fn(tx);
        if (dryRun) throw new DryRunRollback(result);
        return result;
      });
    } catch (error) {
      if (error instanceof DryRunRollback) return error.result as T;
      throw error;
    }
  }

  private async lockForWrite(
    tx: Tx,
    kind: string,
    name: string,
    expectedVersion: string | undefined,
  ) {
    const current = await this.repo.lock(tx, kind, name);
    if (!current) throw new NotFoundError(kind, name);
    if (
      expectedVersion !== undefined &&
      expectedVersion !== current.object.metadata.resourceVersion
    ) {
      throw new ConflictError(kind, name);
    }
    return current;
  }

  /** The bookkeeping every write shares: watch event, kind hooks, audit entry, notification. */
  private async committed(
    tx: Tx,
    type: 'ADDED' | 'MODIFIED' | 'DELETED',
    actor: Actor,
    before: StoredObject | undefined,
    after: StoredObject,
    specChanged: boolean,
    extras: WriteExtras,
    verb = { ADDED: 'create', MODIFIED: 'update', DELETED: 'delete' }[type],
    statusOnly = verb === 'update-status',
  ): Promise<void> {
    const { kind } = after;
    const { name, resourceVersion } = after.metadata;
    await this.repo.recordEvent(
      tx,
      { resourceVersion: BigInt(resourceVersion), kind, name, type, object: after },
      this.env.WATCH_HISTORY,
    );
    await this.hooks.get(kind)?.afterWrite?.({
      tx,
      actor,
      type,
      ...(before ? { before } : {}),
      ...(type !== 'DELETED' ? { after } : {}),
      specChanged,
      extras,
    });
    await this.audit.append(tx, {
      actor: actor.name,
      verb,
      kind,
      name,
      beforeHash: before ? auditHash(before, statusOnly) : null,
      afterHash: type === 'DELETED' ? null : auditHash(after, statusOnly),
      details: { resourceVersion, generation: after.metadata.generation },
    });
    await this.notifier.notify(tx, { kind, name, resourceVersion });
  }
}

/** What an audit entry's before/after hashes cover: the desired state, or the status. */
function auditHash(object: StoredObject, statusOnly: boolean): string {
  if (statusOnly) return hashCanonical(object.status);
  return hashCanonical({
    labels: object.metadata.labels,
    annotations: object.metadata.annotations,
    spec: object.spec,
  });
}

function encodeContinue(name: string): string {
  return Buffer.from(JSON.stringify({ after: name })).toString('base64url');
}

function decodeContinue(token: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      after?: unknown;
    };
    if (typeof parsed.after === 'string') return parsed.after;
  } catch {
    // fall through
  }
  throw new BadRequestError('continue: not a token this API issued');
}
