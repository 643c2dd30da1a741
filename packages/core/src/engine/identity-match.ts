import type { RuleAction } from '../resources/mediation-policy.ts';
import type { ActionIdentity } from './action.ts';
import type { NameMatcher } from './name-pattern.ts';

/** A field of an identity that a rule's `match.identity` may select on. */
export type IdentityField = 'human' | 'service' | 'session';

/**
 * The identity rules are matched against: the bound names, and which fields rules may rely on.
 * A field is trusted when a Toolgate token proved it (the human and the service together: a
 * token proves its owner, and so that the caller is nobody of the other type), or when the
 * bundle trusts header claims and they name known agent identities. An untrusted field is only a
 * claim: an agent can send any name there, or none.
 */
export interface RuleIdentity extends ActionIdentity {
  /** The fields whose value, or absence, is proven or trusted. Absent: none is. */
  trusted?: ReadonlyArray<IdentityField>;
  /**
   * The receipt's binding (`when:` conditions read it as `identity.binding`). Absent (callers
   * older than conditions): derived from `trusted`.
   */
  binding?: 'verified' | 'claimed' | 'unverified' | 'rejected';
}

/**
 * Whether an action takes something away from the agent, so that escaping it is what a caller
 * would want: such a rule applies to a caller whose identity on the selected field is not
 * trusted (fail closed), whatever name it sends. Other actions apply only to a trusted identity.
 * A Record, so a new action cannot be added without deciding.
 *
 * - `hide` removes a tool (and blocks calls to it).
 * - `augment` tightens a tool's parameters and appends the operator's instructions.
 * - `replace` puts a trusted declaration in place of the agent's own.
 * - `rename` only changes the provider-facing name; calls come back under the agent's own.
 * - `deny`, `require_approval` and `rate_limit` withhold calls.
 */
export const RESTRICTING_ACTIONS: Readonly<Record<RuleAction, boolean>> = {
  hide: true,
  augment: true,
  replace: true,
  rename: false,
  deny: true,
  require_approval: true,
  rate_limit: true,
  compact: false,
  host: false,
};

/**
 * One identity selector against the request's identity. A trusted field matches on its value
 * (a field the request does not carry never matches). An untrusted field matches every
 * restricting rule and no other, so no name an agent sends — another name, a case variant, a
 * name a negative regex excludes, or none — can take it out of a restriction or into a rule
 * meant for someone else.
 */
export function identitySelectorMatches(
  matcher: NameMatcher | undefined,
  field: IdentityField,
  identity: RuleIdentity,
  restricting: boolean,
): boolean {
  if (matcher === undefined) return true;
  if (!identity.trusted?.includes(field)) return restricting;
  const value = identity[field];
  return value !== undefined && matcher(value);
}
