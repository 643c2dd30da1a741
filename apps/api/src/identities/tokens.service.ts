import { Inject, Injectable } from '@nestjs/common';
import type { TokenSummary } from '@toolgate/contract';
import { NotFoundError } from '@toolgate/core';
import { AuditRepository } from '../audit/audit.repository.ts';
import { TokenRepository } from '../auth/token.repository.ts';
import { hashTokenSecret, newTokenId, newTokenSecret } from '../auth/token-secret.ts';
import { ChangeNotifier } from '../database/change-notifier.ts';
import type { Tx } from '../database/prisma.service.ts';
import type { Actor } from '../resources/kind-hooks.ts';
import { ResourceRepository } from '../resources/resource.repository.ts';
import { ResourceStore } from '../resources/resource-store.service.ts';

/** Issuing (secret shown once, stored hashed), listing and revoking API tokens. */
@Injectable()
export class TokensService {
  constructor(
    @Inject(ResourceStore) private readonly store: ResourceStore,
    @Inject(ResourceRepository) private readonly resources: ResourceRepository,
    @Inject(TokenRepository) private readonly tokens: TokenRepository,
    @Inject(AuditRepository) private readonly audit: AuditRepository,
    @Inject(ChangeNotifier) private readonly notifier: ChangeNotifier,
  ) {}

  issue(
    identity: string,
    options: { description?: string; ttlSeconds?: number },
    actor: Actor,
  ): Promise<TokenSummary & { token: string }> {
    return this.store.inTransaction((tx) => this.issueIn(tx, identity, options, actor));
  }

  /** Issues inside a caller's transaction (bootstrap creates the identity in the same one). */
  async issueIn(
    tx: Tx,
    identity: string,
    options: { description?: string; ttlSeconds?: number },
    actor: Actor,
  ): Promise<TokenSummary & { token: string }> {
    const record = await this.resources.find('Identity', identity, tx);
    if (!record) throw new NotFoundError('Identity', identity);
    const secret = newTokenSecret();
    const summary = await this.tokens.insert(tx, {
      id: newTokenId(),
      identityUid: record.object.metadata.uid,
      identityName: identity,
      tokenHash: hashTokenSecret(secret),
      description: options.description ?? '',
      expiresAt: options.ttlSeconds ? new Date(Date.now() + options.ttlSeconds * 1000) : null,
    });
    await this.audit.append(tx, {
      actor: actor.name,
      verb: 'issue-token',
      kind: 'Identity',
      name: identity,
      beforeHash: null,
      afterHash: null,
      details: { tokenId: summary.id, expiresAt: summary.expiresAt },
    });
    await this.announce(tx, identity);
    return { ...summary, token: secret };
  }

  async list(identity: string): Promise<TokenSummary[]> {
    await this.store.get('Identity', identity);
    return this.tokens.listFor(identity);
  }

  revoke(identity: string, tokenId: string, actor: Actor): Promise<TokenSummary> {
    return this.store.inTransaction(async (tx) => {
      const token = await this.tokens.find(tx, identity, tokenId);
      if (!token) throw new NotFoundError('Token', tokenId);
      if (token.revokedAt) return token;
      const revoked = await this.tokens.revoke(tx, tokenId, new Date());
      await this.audit.append(tx, {
        actor: actor.name,
        verb: 'revoke-token',
        kind: 'Identity',
        name: identity,
        beforeHash: null,
        afterHash: null,
        details: { tokenId },
      });
      await this.announce(tx, identity);
      return revoked;
    });
  }

  /** Agent tokens are part of gateway bundles: a change must wake long-polling gateways. */
  private announce(tx: Tx, identity: string): Promise<void> {
    return this.notifier.notify(tx, { kind: 'Identity', name: identity, resourceVersion: '' });
  }
}
