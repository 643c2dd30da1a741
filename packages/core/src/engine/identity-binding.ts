import { sha256Hex } from '#sha256';
import type { ReceiptIdentity } from '../receipt/receipt-schema.ts';

/** An agent's Toolgate token as a bundle carries it: the SHA-256 of the secret, never the secret. */
export interface BindableToken {
  /** Lowercase hex SHA-256 of the token secret (as the API stores it). */
  sha256: string;
  /** ISO time after which the token no longer binds; null for no expiry. */
  expiresAt: string | null;
}

/** An identity as a bundle carries it for binding: no secrets, just who may act as an agent. */
export interface BindableIdentity {
  name: string;
  type: 'human' | 'service';
  roles: ReadonlyArray<string>;
  /** Its live tokens (not revoked), so a gateway can verify an agent's token offline. */
  tokens?: ReadonlyArray<BindableToken>;
}

/** What a request claims: from `x-user-id` / `x-service-id` / `x-session-id`, or its token. */
export interface IdentityClaims {
  human?: string;
  service?: string;
  session?: string;
}

/** A Toolgate token the agent presented, and the gateway's clock to check its expiry. */
export interface PresentedToken {
  secret: string;
  /** Milliseconds since the epoch (core has no clock of its own). */
  now: number;
}

/**
 * The agent identity a Toolgate token belongs to: an identity with the `agent` role holding a
 * live, unexpired token with that hash. Undefined for anything else (unknown, revoked, expired).
 */
export function identityByToken(
  token: PresentedToken,
  identities: ReadonlyArray<BindableIdentity>,
): BindableIdentity | undefined {
  const hash = sha256Hex(token.secret);
  return identities.find(
    (identity) =>
      identity.roles.includes('agent') &&
      identity.tokens?.some(
        (t) => t.sha256 === hash && (t.expiresAt === null || Date.parse(t.expiresAt) > token.now),
      ),
  );
}

/**
 * Binds a request's claims to the bundle's agent identities. Every claimed human or service
 * must be a known identity of that type with the `agent` role for the binding to be verified;
 * otherwise the policy decides: `rejected` (the gateway refuses the request) or `unverified`.
 * A request with no claims at all is never verified.
 *
 * A presented token is stronger than a header: when it is live it proves its owner, which
 * becomes the claim of the owner's type (a header claiming someone else of that type makes the
 * binding fail); a token that proves nothing (unknown, revoked, expired) is never verified.
 */
export function bindIdentity(
  claims: IdentityClaims,
  identities: ReadonlyArray<BindableIdentity>,
  unknownIdentities: 'reject' | 'unverified',
  token?: PresentedToken,
): ReceiptIdentity {
  const known = (name: string, type: BindableIdentity['type']) =>
    identities.some((i) => i.name === name && i.type === type && i.roles.includes('agent'));
  const owner = token ? identityByToken(token, identities) : undefined;
  const bound: IdentityClaims = { ...claims };
  let proven = token === undefined || owner !== undefined;
  if (owner) {
    const claimed = claims[owner.type];
    if (claimed !== undefined && claimed !== owner.name) proven = false;
    bound[owner.type] = owner.name;
  }
  const claimed = bound.human !== undefined || bound.service !== undefined;
  const verified =
    proven &&
    claimed &&
    (bound.human === undefined || known(bound.human, 'human')) &&
    (bound.service === undefined || known(bound.service, 'service'));
  return {
    ...(bound.human !== undefined ? { human: bound.human } : {}),
    ...(bound.service !== undefined ? { service: bound.service } : {}),
    ...(bound.session !== undefined ? { session: bound.session } : {}),
    binding: verified ? 'verified' : unknownIdentities === 'reject' ? 'rejected' : 'unverified',
  };
}
