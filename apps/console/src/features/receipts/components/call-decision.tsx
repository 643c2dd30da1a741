import type { CallDecision, ToolCallEvidence } from '@toolgate/core';
import { Link } from 'react-router';
import { Pill, type Tone } from '../../../shared/ui/badges.tsx';

/** A call's policy state as a pill tone: withheld for approval is a wait, not a refusal. */
export const CALL_TONE: Record<ToolCallEvidence['policy_state'], Tone> = {
  allowed: 'good',
  blocked: 'bad',
  deferred: 'warn',
};

const OUTCOME_TONE: Record<CallDecision['outcome'], Tone> = {
  allow: 'good',
  approved: 'good',
  deny: 'bad',
  rate_limited: 'bad',
  approval_required: 'warn',
};

/**
 * What call-time rules decided for a call: the outcome, the rule (policy/id), the approval it
 * waits on or went through (linked), what the agent was told, and what observe-mode rules would
 * have decided.
 */
export function CallDecisionCell(props: { decision: CallDecision | undefined }) {
  const { decision } = props;
  if (decision === undefined) return <span className="muted">—</span>;
  return (
    <div>
      <Pill tone={OUTCOME_TONE[decision.outcome]}>{decision.outcome}</Pill>
      {decision.rule ? (
        <span className="muted">
          {' '}
          {decision.policy}/{decision.rule}
        </span>
      ) : null}
      {decision.approval ? (
        <div>
          approval{' '}
          <Link to={`/approvals/${encodeURIComponent(decision.approval)}`}>
            <code>{decision.approval}</code>
          </Link>
        </div>
      ) : null}
      {decision.message ? <div className="muted">told the agent: “{decision.message}”</div> : null}
      {decision.observed ? (
        <div>
          observe mode would have: <Pill tone="warn">{decision.observed.outcome}</Pill>
          {decision.observed.rule ? (
            <span className="muted">
              {' '}
              {decision.observed.policy}/{decision.observed.rule}
            </span>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
