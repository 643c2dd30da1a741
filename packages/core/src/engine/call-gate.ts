import type { JsonValue } from '../json/json-value.ts';
import type { ApprovalState } from '../resources/tool-call-approval.ts';
import { type RateBucket, type TakeResult, TokenBuckets } from './token-buckets.ts';

/**
 * The state call-time rules decide with beyond the request itself: the approvals the gateway
 * knows of and its rate-limit buckets. The gateway provides one per request (it knows the
 * request's identity, receipt id and gateway); `toolgate eval` and tests use
 * {@link createMemoryCallGate}. Methods never throw.
 */
export interface CallGate {
  /**
   * The approval of an action as this request may use it: an approval given to a proven
   * identity is not used by a request that only claims it. Undefined when none is known.
   */
  approval(actionId: string): KnownApproval | undefined;
  /** Asks for an approval (idempotent per action id; must not delay the response). */
  requestApproval(request: ApprovalRequest): void;
  /** Takes a token from every bucket, or none (token-buckets.ts). */
  take(buckets: ReadonlyArray<RateBucket>): TakeResult;
}

export interface KnownApproval {
  state: ApprovalState;
  /** Who decided (for the agent's explanation of a denial). */
  decidedBy?: string;
  reason?: string;
}

/** What the engine knows of a call that needs approval; the gateway adds who, where, which receipt. */
export interface ApprovalRequest {
  actionId: string;
  tool: string;
  /** Redacted arguments (secret-looking keys already replaced). */
  arguments: JsonValue;
  argumentsHash: string;
  rule: { policy: string; id: string };
  ttlMs: number;
}

export interface MemoryCallGateOptions {
  /** Approvals by action id (e.g. `toolgate eval --approved act_…`). */
  approvals?: ReadonlyMap<string, KnownApproval>;
  now?: () => number;
}

/** A gate held in memory: approvals as given, fresh token buckets, requests collected. */
export function createMemoryCallGate(
  options: MemoryCallGateOptions = {},
): CallGate & { readonly requested: ApprovalRequest[] } {
  const buckets = new TokenBuckets({ ...(options.now ? { now: options.now } : {}) });
  const requested: ApprovalRequest[] = [];
  return {
    requested,
    approval: (actionId) => options.approvals?.get(actionId),
    requestApproval: (request) => {
      if (!requested.some((r) => r.actionId === request.actionId)) requested.push(request);
    },
    take: (list) => buckets.take(list),
  };
}
