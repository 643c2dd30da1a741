import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { TokenRepository } from '../auth/token.repository.ts';
import { type KindHooks, KindHooksRegistry, type WriteContext } from '../resources/kind-hooks.ts';
import type { StoredObject } from '../resources/stored-object.ts';

/**
 * Deleting an identity revokes its tokens in the same transaction; reading one fills
 * `status.tokens` (live token count, last use) from the token table, where token use is
 * recorded.
 */
@Injectable()
export class IdentityHooks implements KindHooks, OnModuleInit {
  readonly kind = 'Identity';

  constructor(
    @Inject(KindHooksRegistry) private readonly registry: KindHooksRegistry,
    @Inject(TokenRepository) private readonly tokens: TokenRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async afterWrite(context: WriteContext): Promise<void> {
    if (context.type === 'DELETED' && context.before) {
      await this.tokens.revokeAllOf(context.tx, context.before.metadata.name, new Date());
    }
  }

  async withDerivedStatus(objects: StoredObject[], now: Date): Promise<StoredObject[]> {
    const usage = await this.tokens.usageByIdentity(
      objects.map((object) => object.metadata.name),
      now,
    );
    return objects.map((object) => {
      const tokens = usage.get(object.metadata.name);
      return {
        ...object,
        status: {
          ...object.status,
          tokens: {
            active: tokens?.active ?? 0,
            ...(tokens?.lastUsedAt ? { lastUsedTime: tokens.lastUsedAt.toISOString() } : {}),
          },
        },
      };
    });
  }
}
