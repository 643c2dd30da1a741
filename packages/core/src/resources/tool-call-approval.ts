import { z } from 'zod';
import type { JsonValue } from '../json/json-value.ts';
import {
  Conditions,
  defineResource,
  defineResourceInput,
  findCondition,
  ResourceName,
  Timestamp,
} from './envelope.ts';
import { IdentityBinding, Surface } from './vocabulary.ts';

/**
 * A human decision on one tool call (Kubernetes CertificateSigningRequest-style). A gateway
 * requests it for a call a `require_approval` rule withheld; it is named after the call's AARM
 * `action_id`, so the same tool, arguments and identity always name the same approval. An
 * operator approves or denies it (`…/{name}/approval`); once approved, the same action is allowed
 * until `status.expiresAt`. Its status is written by the API alone.
 */

/** `act_` + 32 hex digits (`actionId` in engine/action.ts): the approval's name. */
export const ActionId = z.string().regex(/^act_[0-9a-f]{32}$/, 'must be "act_" + 32 hex digits');
export type ActionId = z.infer<typeof ActionId>;

export const APPROVAL_CONDITIONS = ['Approved', 'Denied', 'Expired'] as const;
export type ApprovalConditionType = (typeof APPROVAL_CONDITIONS)[number];

/** The most argument bytes (canonical JSON) an approval carries: enough to judge, bounded. */
export const MAX_APPROVAL_ARGUMENTS_BYTES = 16 * 1024;

const ShortText = z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters');

/** The identity the call was made under, as the receipt recorded it. */
export const ApprovalIdentity = z
  .object({
    human: ShortText.optional(),
    service: ShortText.optional(),
    session: ShortText.optional(),
    binding: IdentityBinding,
  })
  .strict();
export type ApprovalIdentity = z.infer<typeof ApprovalIdentity>;

/** The call's arguments after redaction, bounded in size. */
const RedactedArguments = z.custom<JsonValue>((value) => {
  try {
    const text = JSON.stringify(value);
    return (
      text !== undefined && new TextEncoder().encode(text).length <= MAX_APPROVAL_ARGUMENTS_BYTES
    );
  } catch {
    return false;
  }
}, `must be JSON of at most ${MAX_APPROVAL_ARGUMENTS_BYTES} bytes`);

export const ToolCallApprovalSpec = z
  .object({
    actionId: ActionId,
    /** The tool as the agent named it (for a meta-tool call, the `server/tool` it targets). */
    tool: ShortText,
    /** Redacted arguments (secret-looking keys replaced); `argumentsTruncated` when cut. */
    arguments: RedactedArguments,
    argumentsTruncated: z.boolean().optional(),
    argumentsHash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" + 64 hex digits'),
    identity: ApprovalIdentity,
    /** The gateway that withheld the call, and the receipt of that request. */
    gateway: ResourceName,
    receiptId: z.string().min(1).max(128),
    surface: Surface,
    /** The `require_approval` rule that withheld the call. */
    rule: z.object({ policy: ResourceName, id: ShortText }).strict(),
    /** How long a decision (or an unanswered request) stands, in seconds (the rule's `ttl`). */
    ttlSeconds: z
      .number()
      .int('must be an integer')
      .min(1)
      .max(30 * 86_400),
  })
  .strict();
export type ToolCallApprovalSpec = z.infer<typeof ToolCallApprovalSpec>;

export const ToolCallApprovalStatus = z.object({
  /** `Approved`, `Denied`, `Expired`: at most one `True`. None `True`: pending. */
  conditions: Conditions.default([]),
  /** When the pending request was (last) made: a request on an expired approval re-opens it. */
  requestedAt: Timestamp.optional(),
  /**
   * How many requests opened it: 1 when created, one more each time a request re-opens it after
   * expiry. Retries while it is open are answered without a write, so they are not counted.
   */
  requests: z.number().int().min(0).optional(),
  /** Who decided, and when. */
  decidedBy: z.string().max(253).optional(),
  decidedAt: Timestamp.optional(),
  /** When the current state ends (pending: unanswered; approved/denied: no longer stands). */
  expiresAt: Timestamp.optional(),
});
export type ToolCallApprovalStatus = z.infer<typeof ToolCallApprovalStatus>;

export const ToolCallApproval = defineResource(
  'ToolCallApproval',
  ToolCallApprovalSpec,
  ToolCallApprovalStatus,
);
export type ToolCallApproval = z.infer<typeof ToolCallApproval>;

export const ToolCallApprovalInput = defineResourceInput('ToolCallApproval', ToolCallApprovalSpec);
export type ToolCallApprovalInput = z.infer<typeof ToolCallApprovalInput>;

/** The body of `PUT …/toolcallapprovals/{name}/approval`. */
export const ApprovalDecisionInput = z
  .object({
    decision: z.enum(['Approve', 'Deny']),
    /** Shown to auditors, and to the agent for a denial. */
    reason: z.string().max(1024, 'must be at most 1024 characters').optional(),
  })
  .strict();
export type ApprovalDecisionInput = z.infer<typeof ApprovalDecisionInput>;

export type ApprovalState = 'pending' | 'approved' | 'denied' | 'expired';

/**
 * An approval's state at `now`: a `True` condition, or pending; any state past `expiresAt` is
 * expired (gateways judge expiry by the clock, not by waiting for the API to write it).
 */
export function approvalState(
  approval: { status?: ToolCallApprovalStatus | undefined },
  now: number,
): ApprovalState {
  const status = approval.status;
  const expiresAt = status?.expiresAt === undefined ? undefined : Date.parse(status.expiresAt);
  if (findCondition(status?.conditions, 'Expired')?.status === 'True') return 'expired';
  if (expiresAt !== undefined && now >= expiresAt) return 'expired';
  if (findCondition(status?.conditions, 'Approved')?.status === 'True') return 'approved';
  if (findCondition(status?.conditions, 'Denied')?.status === 'True') return 'denied';
  return 'pending';
}

/** Whether `value` looks like an approval object (for watch events of unknown shape). */
export function isToolCallApproval(value: unknown): value is ToolCallApproval {
  return ToolCallApproval.safeParse(value).success;
}
