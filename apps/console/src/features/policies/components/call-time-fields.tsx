import { RateLimitKey } from '@toolgate/core';
import { Field } from '../../../shared/ui/field.tsx';
import { isCallTime, type RuleFields } from '../draft/form-model.ts';

/**
 * The controls only call-time rules have: what the agent is told (`message`), the approval's
 * `ttl` of require_approval, the `limit` of rate_limit. Nothing for the other actions.
 */
export function CallTimeFields(props: {
  rule: RuleFields;
  /** `spec.rules[i]`: where this rule's errors are. */
  at: string;
  errorAt: (...paths: string[]) => string | undefined;
  disabled: boolean;
  onChange: (patch: Partial<RuleFields>) => void;
}) {
  const { rule, at, errorAt, disabled, onChange } = props;
  if (!isCallTime(rule.action)) return null;
  return (
    <>
      <Field
        label="Message to the agent"
        hint="empty: a default naming the tool and the decision"
        error={errorAt(`${at}.message`)}
      >
        {(control) => (
          <input
            {...control}
            value={rule.message}
            disabled={disabled}
            onChange={(e) => onChange({ message: e.target.value })}
          />
        )}
      </Field>
      {rule.action === 'require_approval' ? (
        <Field
          label="Approval valid for"
          hint="how long an approved action stays allowed, e.g. 1h (the default) or 30m"
          error={errorAt(`${at}.approval`)}
        >
          {(control) => (
            <input
              {...control}
              value={rule.approvalTtl}
              placeholder="1h"
              disabled={disabled}
              onChange={(e) => onChange({ approvalTtl: e.target.value })}
            />
          )}
        </Field>
      ) : null}
      {rule.action === 'rate_limit' ? (
        <>
          <Field label="Calls allowed" error={errorAt(`${at}.limit.calls`, `${at}.limit`)}>
            {(control) => (
              <input
                {...control}
                inputMode="numeric"
                value={rule.limitCalls}
                disabled={disabled}
                onChange={(e) => onChange({ limitCalls: e.target.value })}
              />
            )}
          </Field>
          <Field label="Per" hint="a duration, e.g. 1m" error={errorAt(`${at}.limit.per`)}>
            {(control) => (
              <input
                {...control}
                value={rule.limitPer}
                disabled={disabled}
                onChange={(e) => onChange({ limitPer: e.target.value })}
              />
            )}
          </Field>
          <Field
            label="Counted per"
            hint="each gateway keeps its own count"
            error={errorAt(`${at}.limit.by`)}
          >
            {(control) => (
              <select
                {...control}
                value={rule.limitBy || 'identity'}
                disabled={disabled}
                onChange={(e) => onChange({ limitBy: e.target.value })}
              >
                {RateLimitKey.options.map((key) => (
                  <option key={key}>{key}</option>
                ))}
              </select>
            )}
          </Field>
        </>
      ) : null}
    </>
  );
}
