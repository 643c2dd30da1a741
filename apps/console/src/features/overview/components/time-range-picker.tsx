import { type FormEvent, useState } from 'react';
import { Field } from '../../../shared/ui/field.tsx';
import { customRangeError, PRESETS, type Preset, type RangeChoice } from './time-range.ts';

/** `2026-01-02T03:04:05.000Z` → the `datetime-local` value in the browser's zone. */
function toLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

function fromLocalInput(value: string): string {
  const date = new Date(value);
  return value && !Number.isNaN(date.getTime()) ? date.toISOString() : '';
}

/** Last hour / day / week, or a custom range checked before it is applied. */
export function TimeRangePicker(props: {
  choice: RangeChoice;
  onChange: (next: { range: string; from?: string; to?: string }) => void;
}) {
  const { choice } = props;
  const [custom, setCustom] = useState(choice.kind === 'custom');
  const [from, setFrom] = useState(choice.kind === 'custom' ? choice.from : '');
  const [to, setTo] = useState(choice.kind === 'custom' ? choice.to : '');
  const [error, setError] = useState<string>();

  const apply = (event: FormEvent) => {
    event.preventDefault();
    const problem = customRangeError(from, to);
    setError(problem);
    if (!problem) props.onChange({ range: 'custom', from, to });
  };

  return (
    <div className="time-range">
      <fieldset className="segmented">
        <legend className="sr-only">Time range</legend>
        {(Object.keys(PRESETS) as Preset[]).map((preset) => {
          const active = !custom && choice.kind === 'preset' && choice.preset === preset;
          return (
            <button
              key={preset}
              type="button"
              className={active ? 'active' : ''}
              aria-pressed={active}
              onClick={() => {
                setCustom(false);
                setError(undefined);
                props.onChange({ range: preset });
              }}
            >
              {PRESETS[preset].label}
            </button>
          );
        })}
        <button
          type="button"
          className={custom ? 'active' : ''}
          aria-pressed={custom}
          onClick={() => setCustom(true)}
        >
          Custom
        </button>
      </fieldset>
      {custom ? (
        <form className="time-range-custom" onSubmit={apply} noValidate>
          <Field label="From">
            {(control) => (
              <input
                {...control}
                type="datetime-local"
                value={toLocalInput(from)}
                onChange={(e) => setFrom(fromLocalInput(e.target.value))}
              />
            )}
          </Field>
          <Field label="To" error={error}>
            {(control) => (
              <input
                {...control}
                type="datetime-local"
                value={toLocalInput(to)}
                onChange={(e) => setTo(fromLocalInput(e.target.value))}
              />
            )}
          </Field>
          <button type="submit" className="button">
            Apply range
          </button>
        </form>
      ) : null}
    </div>
  );
}
