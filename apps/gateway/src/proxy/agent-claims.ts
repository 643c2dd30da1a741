import type { IncomingHttpHeaders } from 'node:http';
import { type IdentityClaims, illFormedPathInJson, RECEIPT_LIMITS } from '@toolgate/core';
import { toolgateTokenIn } from './upstream.ts';

/**
 * What the gateway reads from an agent's request for its receipt, checked before the provider
 * is called: a request whose receipt could not be built is refused (400, naming the field), never
 * forwarded. The body's tools and model are bounded by the engine (RECEIPT_LIMITS).
 */

/** An agent request the receipt could not hold: a 400 naming the field. */
export class UnrecordableRequestError extends Error {}

const IDENTITY_HEADERS = [
  ['x-user-id', 'human'],
  ['x-service-id', 'service'],
  ['x-session-id', 'session'],
] as const;

/**
 * `x-user-id`, `x-service-id`, `x-session-id`: who the agent says it is. Empty headers are
 * absent; one longer than the receipt holds (RECEIPT_LIMITS.identityClaim) is refused.
 */
export function identityClaims(headers: IncomingHttpHeaders): IdentityClaims {
  const claims: IdentityClaims = {};
  for (const [header, claim] of IDENTITY_HEADERS) {
    const value = headers[header];
    if (typeof value !== 'string' || value.length === 0) continue;
    if (value.length > RECEIPT_LIMITS.identityClaim) {
      throw new UnrecordableRequestError(
        `header ${header}: must be at most ${RECEIPT_LIMITS.identityClaim} characters`,
      );
    }
    claims[claim] = value;
  }
  return claims;
}

/**
 * Refuses a body holding a lone UTF-16 surrogate (`"model": "gpt\ud800"`): canonical JSON, the
 * receipt's hash and PostgreSQL cannot take one, so its receipt could not be built. One regex
 * scan of the text for a well-formed request.
 */
export function checkWellFormed(text: string, body: unknown): void {
  const path = illFormedPathInJson(text, body);
  if (path !== undefined) {
    throw new UnrecordableRequestError(
      `${path}: holds a lone UTF-16 surrogate (not valid Unicode text)`,
    );
  }
}

/**
 * The agent's Toolgate token: `x-toolgate-token`, or the SDK's own key slot (`Authorization:
 * Bearer tg_…`, `x-api-key: tg_…`) when the agent uses its Toolgate token as the API key — the
 * gateway then holds the provider key. Never forwarded upstream (see Upstreams).
 */
export function toolgateToken(headers: IncomingHttpHeaders): string | undefined {
  const explicit = headers['x-toolgate-token'];
  if (typeof explicit === 'string' && explicit.length > 0) return explicit;
  for (const value of [headers.authorization, headers['x-api-key']]) {
    const token = typeof value === 'string' ? toolgateTokenIn(value) : undefined;
    if (token) return token;
  }
  return undefined;
}
