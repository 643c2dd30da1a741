import { CALL_TIME_ACTIONS, type MediationRule, type RuleAction } from '@toolgate/core';
import { Pill } from '../../../shared/ui/badges.tsx';

/**
 * A policy's rules by action, e.g. `hide ×2 · deny · rate_limit`: what the policy does at a
 * glance. Call-time actions (judged per tool call, and able to withhold one) stand out; a rule
 * with a `when:` condition is counted with its action and marked.
 */
export function RuleActionSummary(props: { rules: ReadonlyArray<MediationRule> }) {
  const counts = new Map<RuleAction, { rules: number; conditional: number }>();
  for (const rule of props.rules) {
    const count = counts.get(rule.action) ?? { rules: 0, conditional: 0 };
    count.rules++;
    if (rule.when !== undefined) count.conditional++;
    counts.set(rule.action, count);
  }
  if (counts.size === 0) return <span className="muted">none</span>;
  return (
    <span className="labels">
      {[...counts].map(([action, count]) => (
        <Pill
          key={action}
          tone={CALL_TIME_ACTIONS[action] ? 'warn' : 'info'}
          title={`${count.rules} ${action} rule${count.rules === 1 ? '' : 's'}${
            count.conditional > 0 ? `, ${count.conditional} with a when: condition` : ''
          }${CALL_TIME_ACTIONS[action] ? ' (call-time: judged per tool call)' : ''}`}
        >
          {action}
          {count.rules > 1 ? ` ×${count.rules}` : ''}
          {count.conditional > 0 ? ' (when)' : ''}
        </Pill>
      ))}
    </span>
  );
}
