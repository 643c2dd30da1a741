import { Inject, Injectable } from '@nestjs/common';
import type { IdentitySpec } from '@toolgate/core';
import { ResourceRepository } from '../resources/resource.repository.ts';
import { TokenRepository } from './token.repository.ts';
import { hashTokenSecret } from './token-secret.ts';

/** The identity behind a request. */
export interface Principal {
  name: string;
  type: IdentitySpec['type'];
  roles: IdentitySpec['roles'];
  tokenId: string;
}

const TOUCH_EVERY_MS = 60_000;

/**
 * Resolves `Authorization: Bearer <token>` to a principal on every request, straight from the
 * database: a revoked or expired token stops working at once, on every API replica.
 */
@Injectable()
export class Authenticator {
  private readonly lastTouched = new Map<string, number>();

  constructor(
    @Inject(TokenRepository) private readonly tokens: TokenRepository,
    @Inject(ResourceRepository) private readonly resources: ResourceRepository,
  ) {}

  async authenticate(authorization: string | undefined): Promise<Principal | undefined> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) return undefined;
    const now = new Date();
    const token = await this.tokens.findLive(hashTokenSecret(match[1] as string), now);
    if (!token) return undefined;
    const identity = await this.resources.find('Identity', token.identityName);
    if (!identity) return undefined;
    this.touch(token.id, now);
    const spec = identity.object.spec as IdentitySpec;
    return { name: token.identityName, type: spec.type, roles: spec.roles, tokenId: token.id };
  }

  private touch(id: string, now: Date): void {
    const last = this.lastTouched.get(id) ?? 0;
    if (now.getTime() - last < TOUCH_EVERY_MS) return;
    this.lastTouched.set(id, now.getTime());
    void this.tokens.touch(id, now);
  }
}
