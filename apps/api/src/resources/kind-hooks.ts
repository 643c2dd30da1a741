import { Injectable } from '@nestjs/common';
import type { Role } from '@toolgate/core';
import type { Tx } from '../database/prisma.service.ts';
import type { ObjectInput, StoredObject } from './stored-object.ts';

/** Who is making a request: the identity behind its token. */
export interface Actor {
  name: string;
  roles: ReadonlyArray<Role>;
}

/** What a write carries besides the object, for the kind's hooks (a policy's revision). */
export interface WriteExtras {
  /** The operator's note on why. */
  changeNote?: string;
  /** The write is a rollback to this generation. */
  rollbackOf?: number;
}

export interface WriteContext {
  tx: Tx;
  actor: Actor;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  before?: StoredObject;
  after?: StoredObject;
  specChanged: boolean;
  extras: WriteExtras;
}

/** What a kind adds to the generic store semantics. Registered by the kind's own module. */
export interface KindHooks {
  readonly kind: string;
  /** Checks beyond the schema (references, role-gated values); throws ValidationError. */
  validate?(input: ObjectInput, actor: Actor, tx: Tx): Promise<void>;
  /** The status the API itself maintains on spec writes (kinds it is the controller of). */
  statusFor?(object: StoredObject, specHash: string): Record<string, unknown>;
  /** Runs inside the write's transaction, after the row is written. */
  afterWrite?(context: WriteContext): Promise<void>;
  /**
   * Status facts that change without any write to the object (a token used, a token expiring),
   * filled in whenever the object is read through the API: storing them would mean a write, a
   * new resourceVersion and a watch event per request.
   */
  withDerivedStatus?(objects: StoredObject[], now: Date): Promise<StoredObject[]>;
}

/** Kind modules register their hooks here at start-up; the store looks them up per write. */
@Injectable()
export class KindHooksRegistry {
  private readonly hooks = new Map<string, KindHooks>();

  register(hooks: KindHooks): void {
    this.hooks.set(hooks.kind, hooks);
  }

  get(kind: string): KindHooks | undefined {
    return this.hooks.get(kind);
  }
}
