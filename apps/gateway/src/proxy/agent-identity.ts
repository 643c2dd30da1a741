import type { IncomingMessage } from 'node:http';
import { type IdentityClaims, RECEIPT_LIMITS, scrubSecrets } from '@toolgate/core';
import { toolgateTokenIn } from './upstream.ts';

/** The headers an agent names itself with, and the receipt field each one fills. */
const CLAIM_HEADERS = [
  ['x-user-id', 'human'],
  ['x-service-id', 'service'],
  ['x-session-id', 'session'],
] as const;
const TOKEN_HEADER = 'x-toolgate-token';
/** A claim is recorded in the receipt as sent: bounded like every receipt-bound field. */
const MAX_CLAIM_LENGTH = RECEIPT_LIMITS.identityClaim;

/** An identity header the gateway refuses to read (400, naming the header). */
export class UnreadableIdentityError extends Error {}

/** Who the agent says it is (headers), and the Toolgate token it presented to prove it, if any. */
export interface AgentIdentity {
  claims: IdentityClaims;
  token?: string;
}

/**
 * Reads the identity headers of an agent request. Each may come once: two `x-user-id` lines are
 * two answers to one question, and Node would join them into one made-up name. A claim carrying
 * a credential (a Toolgate token sent in the wrong header, an API key) is refused rather than
 * recorded, since claims go into receipts verbatim; so are two different Toolgate tokens.
 */
export function readAgentIdentity(request: IncomingMessage): AgentIdentity {
  const distinct = request.headersDistinct;
  const single = (name: string): string | undefined => {
    const values = distinct[name];
    if (values === undefined) return undefined;
    if (values.length > 1) throw new UnreadableIdentityError(`${name}: must be sent once`);
    return values[0];
  };
  const claims: IdentityClaims = {};
  for (const [header, field] of CLAIM_HEADERS) {
    const value = single(header);
    if (value === undefined || value.length === 0) continue;
    if (value.length > MAX_CLAIM_LENGTH) {
      throw new UnreadableIdentityError(
        `${header}: must be at most ${MAX_CLAIM_LENGTH} characters`,
      );
    }
    if (scrubSecrets(value) !== value) {
      throw new UnreadableIdentityError(
        `${header}: looks like a credential; send a Toolgate token in ${TOKEN_HEADER} or as the API key`,
      );
    }
    claims[field] = value;
  }
  const explicit = single(TOKEN_HEADER);
  // The SDK's own key slot holds a Toolgate token when the agent uses it as the API key (the
  // gateway then holds the provider key); anything else there is the provider key.
  const keySlots = [single('authorization'), single('x-api-key'), single('x-goog-api-key')];
  const inKeySlots = keySlots.flatMap((value) => {
    const token = value === undefined ? undefined : toolgateTokenIn(value);
    return token ? [token] : [];
  });
  const tokens = new Set([...(explicit ? [explicit] : []), ...inKeySlots]);
  if (tokens.size > 1) {
    throw new UnreadableIdentityError(
      `${TOKEN_HEADER}, authorization, x-api-key, x-goog-api-key: carry different Toolgate tokens; send one`,
    );
  }
  const [token] = tokens;
  return token === undefined ? { claims } : { claims, token };
}
