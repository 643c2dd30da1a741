import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { TokenRepository } from '../auth/token.repository.ts';
import { type KindHooks, KindHooksRegistry, type WriteContext } from '../resources/kind-hooks.ts';

/** Deleting an identity revokes its tokens in the same transaction. */
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
}
