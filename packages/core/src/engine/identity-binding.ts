import type { ReceiptIdentity } from '../receipt/receipt-schema.ts';

/** An identity as a bundle carries it for binding: no secrets, just who may act as an agent. */
export interface BindableIdentity {
  name: string;
  type: 'human' | 'service';
  roles: ReadonlyArray<string>;
}

/** What a request claims: from `x-user-id` / `x-service-id` / `x-session-id`, or its token. */
export interface IdentityClaims {
  human?: string;
  service?: string;
  session?: string;
}

/**
 * Binds a request's claims to the bundle's agent identities. Every claimed human or service
 * must be a known identity of that type with the `agent` role for the binding to be verified;
 * otherwise the policy decides: `rejected` (the gateway refuses the request) or `unverified`.
 * A request with no claims at all is never verified.
 */
export function bindIdentity(
  claims: IdentityClaims,
  identities: ReadonlyArray<BindableIdentity>,
  unknownIdentities: 'reject' | 'unverified',
): ReceiptIdentity {
  const known = (name: string, type: BindableIdentity['type']) =>
    identities.some((i) => i.name === name && i.type === type && i.roles.includes('agent'));
  const claimed = claims.human !== undefined || claims.service !== undefined;
  const verified =
    claimed &&
    (claims.human === undefined || known(claims.human, 'human')) &&
    (claims.service === undefined || known(claims.service, 'service'));
  return {
    ...(claims.human !== undefined ? { human: claims.human } : {}),
    ...(claims.service !== undefined ? { service: claims.service } : {}),
    ...(claims.session !== undefined ? { session: claims.session } : {}),
    binding: verified ? 'verified' : unknownIdentities === 'reject' ? 'rejected' : 'unverified',
  };
}
