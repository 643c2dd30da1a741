import { type FormEvent, useEffect, useState } from 'react';
import { Field } from '../../../shared/ui/field.tsx';
import { AUDIT_PRESETS, type AuditPreset, auditRangeError, isAuditPreset } from './audit-range.ts';

/** `2026-01-02T03:04:05.000Z` → the `datetime-local` value in the browser's zone. */
function toLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

function fromLocalInput(value: string): string | undefined {
  const date = new Date(value);
  return value && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined;
}

export interface AuditRangeValues {
  range?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

/** Any time, last hour / day / week, or a custom From–Until checked before it is applied. */
export function AuditTimeRange(props: {
  values: AuditRangeValues;
  onChange: (next: AuditRangeValues) => void;
}) {
  const { values } = props;
  const [since, setSince] = useState(values.since);
  const [until, setUntil] = useState(values.until);
  useEffect(() => {
    setSince(values.since);
    setUntil(values.until);
  }, [values.since, values.until]);
  const error = auditRangeError(since, until);
  const custom = values.range === 'custom';
  const anyTime = !values.range;
  const apply = (event: FormEvent) => {
    event.preventDefault();
    if (error || (!since && !until)) return;
    props.onChange({ range: 'custom', since, until });
  };
  const preset = (range: AuditPreset | undefined) =>
    props.onChange({ range, since: undefined, until: undefined });
  return (
    <form className="filters" onSubmit={apply} aria-label="Audit time range" noValidate>
      <fieldset className="segmented segmented-wrap">
        <legend className="sr-only">Time range</legend>
        <button
          type="button"
          className={anyTime ? 'active' : ''}
          aria-pressed={anyTime}
          onClick={() => preset(undefined)}
        >
          Any time
        </button>
        {(Object.keys(AUDIT_PRESETS) as AuditPreset[]).map((key) => {
          const active = isAuditPreset(values.range) && values.range === key;
          return (
            <button
              key={key}
              type="button"
              className={active ? 'active' : ''}
              aria-pressed={active}
              onClick={() => preset(key)}
            >
              {AUDIT_PRESETS[key].label}
            </button>
          );
        })}
      </fieldset>
      <Field label="From">
        {(control) => (
          <input
            {...control}
            type="datetime-local"
            value={toLocalInput(since)}
            onChange={(e) => setSince(fromLocalInput(e.target.value))}
          />
        )}
      </Field>
      <Field label="Until" error={error}>
        {(control) => (
          <input
            {...control}
            type="datetime-local"
            value={toLocalInput(until)}
            onChange={(e) => setUntil(fromLocalInput(e.target.value))}
          />
        )}
      </Field>
      <div className="filter-actions">
        <button
          type="submit"
          className={custom ? 'button button-primary active' : 'button button-primary'}
          disabled={Boolean(error) || (!since && !until)}
        >
          Apply range
        </button>
      </div>
    </form>
  );
}
