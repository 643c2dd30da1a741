import { sha256Hex } from '#sha256';
import type { ClaimedIdentity, ReceiptIdentity } from '../receipt/receipt-schema.ts';
import type { HeaderClaims } from '../resources/mediation-policy.ts';
import type { IdentityField, RuleIdentity } from './identity-match.ts';

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

/** What a request's headers claim: `x-user-id` / `x-service-id` / `x-session-id`. */
export type IdentityClaims = ClaimedIdentity;

/** The bundle's identity settings (merged from its policies, the strictest winning). */
export interface IdentityPolicy {
  readonly unknownIdentities: 'reject' | 'unverified';
  readonly headerClaims: HeaderClaims;
}

/** A request's identity once bound: what its receipt records, and what rules match against. */
export interface BoundIdentity {
  receipt: ReceiptIdentity;
  rules: RuleIdentity;
}

/** A Toolgate token the agent presented, and the gateway's clock to check its expiry. */
export interface PresentedToken {
  secret: string;
  /** Milliseconds since the epoch (core has no clock of its own). */
  now: number;
  /**
   * The secret's lowercase hex SHA-256, when the caller already computed it (the MCP proxy keys
   * session ownership by it): the token is then hashed once per request, not twice.
   */
  sha256?: string;
}

/**
 * The agent identity a Toolgate token belongs to: an identity with the `agent` role holding a
 * live, unexpired token with that hash. Undefined for anything else (unknown, revoked, expired).
 */
export function identityByToken(
  token: PresentedToken,
  identities: ReadonlyArray<BindableIdentity>,
): BindableIdentity | undefined {
  const hash = token.sha256 ?? sha256Hex(token.secret);
  return identities.find(
    (identity) =>
      identity.roles.includes('agent') &&
      identity.tokens?.some(
        (t) => t.sha256 === hash && (t.expiresAt === null || Date.parse(t.expiresAt) > token.now),
      ),
  );
}

/**
 * Binds a request to the bundle's agent identities. Only a live Toolgate token proves who the
 * caller is (`verified`): its owner is the identity, whatever the headers say (the receipt then
 * keeps the headers' claims beside it). Headers alone are claims: `claimed` when every name they
 * give is a known agent identity of that type, else `unverified`; a token that proves nothing
 * (unknown, revoked, expired) leaves the claims `unverified`. What is not proven is `rejected`
 * under `unknownIdentities: reject`, unless the bundle trusts header claims and they are
 * `claimed`. The session is never proven: rules rely on it only when header claims are trusted.
 */
export function bindIdentity(
  claims: IdentityClaims,
  identities: ReadonlyArray<BindableIdentity>,
  policy: IdentityPolicy,
  token?: PresentedToken,
): BoundIdentity {
  const owner = token ? identityByToken(token, identities) : undefined;
  if (owner) return provenIdentity(owner, claims, policy);
  const knownAgent = (name: string | undefined, type: BindableIdentity['type']) =>
    name === undefined ||
    identities.some((i) => i.name === name && i.type === type && i.roles.includes('agent'));
  const named = claims.human !== undefined || claims.service !== undefined;
  const claimed =
    token === undefined &&
    named &&
    knownAgent(claims.human, 'human') &&
    knownAgent(claims.service, 'service');
  const trusted = claimed && policy.headerClaims === 'trusted';
  const binding =
    trusted || (claimed && policy.unknownIdentities !== 'reject')
      ? 'claimed'
      : policy.unknownIdentities === 'reject'
        ? 'rejected'
        : 'unverified';
  const names = {
    ...(claims.human !== undefined ? { human: claims.human } : {}),
    ...(claims.service !== undefined ? { service: claims.service } : {}),
    ...(claims.session !== undefined ? { session: claims.session } : {}),
  };
  return {
    receipt: { ...names, binding },
    rules: { ...names, trusted: trusted ? ['human', 'service', 'session'] : [], binding },
  };
}

/**
 * The identity of a request whose caller a Toolgate token proved to be `owner`: the owner is the
 * identity (and the caller is nobody of the other type), whatever the headers say; the headers'
 * names are kept beside it when they differ. The session stays the agent's claim.
 */
export function provenIdentity(
  owner: Pick<BindableIdentity, 'name' | 'type'>,
  claims: IdentityClaims,
  policy: IdentityPolicy,
): BoundIdentity {
  // Built by assignment: conditional spreads take V8's slow path, and this runs per request.
  const receipt: BoundIdentity['receipt'] = { binding: 'verified' };
  const rules: BoundIdentity['rules'] = {
    binding: 'verified',
    trusted: policy.headerClaims === 'trusted' ? TRUSTED_ALL : TRUSTED_PROVEN,
  };
  receipt[owner.type] = owner.name;
  rules[owner.type] = owner.name;
  if (claims.session !== undefined) {
    receipt.session = claims.session;
    rules.session = claims.session;
  }
  const contradicted =
    (claims.human !== undefined && claims.human !== receipt.human) ||
    (claims.service !== undefined && claims.service !== receipt.service);
  if (contradicted) {
    const headerNames: Pick<IdentityClaims, 'human' | 'service'> = {};
    if (claims.human !== undefined) headerNames.human = claims.human;
    if (claims.service !== undefined) headerNames.service = claims.service;
    receipt.claims = headerNames;
  }
  return { receipt, rules };
}

const TRUSTED_ALL: BoundIdentity['rules']['trusted'] = ['human', 'service', 'session'];
const TRUSTED_PROVEN: BoundIdentity['rules']['trusted'] = ['human', 'service'];

/**
 * The identity rules would have matched for a recorded request, from its receipt (previews
 * replaying a receipt): a `verified` binding was proven by a token, a `claimed` one counts only
 * where header claims are trusted, anything else is a claim rules cannot rely on.
 */
export function ruleIdentityOfReceipt(
  identity: ReceiptIdentity,
  headerClaims: HeaderClaims,
): RuleIdentity {
  const names = {
    ...(identity.human !== undefined ? { human: identity.human } : {}),
    ...(identity.service !== undefined ? { service: identity.service } : {}),
    ...(identity.session !== undefined ? { session: identity.session } : {}),
  };
  const trustsHeaders = headerClaims === 'trusted';
  const trusted: IdentityField[] =
    identity.binding === 'verified'
      ? trustsHeaders
        ? ['human', 'service', 'session']
        : ['human', 'service']
      : identity.binding === 'claimed' && trustsHeaders
        ? ['human', 'service', 'session']
        : [];
  return { ...names, trusted, binding: identity.binding };
}
