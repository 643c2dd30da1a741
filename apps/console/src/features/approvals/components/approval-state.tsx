import { type ApprovalState, approvalState, type ToolCallApproval } from '@toolgate/core';
import { Pill, type Tone } from '../../../shared/ui/badges.tsx';
import { usePendingApprovalCount } from '../api/list-approvals.ts';

export const APPROVAL_STATES: ApprovalState[] = ['pending', 'approved', 'denied', 'expired'];

const TONES: Record<ApprovalState, Tone> = {
  pending: 'warn',
  approved: 'good',
  denied: 'bad',
  expired: 'neutral',
};

/** The approval's state now (expiry judged by the clock, as gateways judge it). */
export function ApprovalStatePill(props: { approval: ToolCallApproval; now: number }) {
  const state = approvalState(props.approval, props.now);
  return <Pill tone={TONES[state]}>{state}</Pill>;
}

/** Who the call was made as: human or service, and the session. */
export function identityText(approval: ToolCallApproval): string {
  const { human, service, session } = approval.spec.identity;
  const who = human ?? service ?? 'anonymous';
  return session ? `${who} (session ${session})` : who;
}

/** The nav's live count of pending approvals; nothing when there are none or it is unknown. */
export function PendingApprovalsBadge() {
  const count = usePendingApprovalCount();
  if (!count) return null;
  return (
    <span className="nav-count" title={`${count} pending`}>
      {count}
      <span className="sr-only"> pending</span>
    </span>
  );
}
