import { Surface } from '@toolgate/core';
import { type FormEvent, useEffect, useState } from 'react';
import { Field } from '../../../shared/ui/field.tsx';
import type { ReceiptFilters } from '../api/list-receipts.ts';

export const FILTER_KEYS = [
  'since',
  'until',
  'gateway',
  'identity',
  'tool',
  'rule',
  'policy',
  'outcome',
  'surface',
] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

const TEXT_FILTERS: Array<{ key: FilterKey; label: string; hint?: string }> = [
  { key: 'gateway', label: 'Gateway' },
  { key: 'identity', label: 'Identity', hint: 'human, service or session' },
  { key: 'tool', label: 'Tool' },
  { key: 'rule', label: 'Rule', hint: 'rule id or policy/rule' },
  { key: 'policy', label: 'Policy' },
];

/** `2026-01-02T03:04:05.000Z` → the `datetime-local` value in the browser's zone. */
function toLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

function fromLocalInput(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The URL's filter values as the API query. */
export function toReceiptFilters(values: Partial<Record<FilterKey, string>>): ReceiptFilters {
  const filters: ReceiptFilters = {};
  for (const key of FILTER_KEYS) {
    const value = values[key];
    if (!value) continue;
    if (key === 'outcome') {
      if (value === 'ok' || value === 'error' || value === 'blocked') filters.outcome = value;
    } else if (key === 'surface') {
      // A surface this console does not know would be a 400: the URL may be hand-edited.
      const surface = Surface.safeParse(value);
      if (surface.success) filters.surface = surface.data;
    } else filters[key] = value;
  }
  return filters;
}

/** The filter form; applies on submit (Enter) so typing does not fire a query per key. */
export function ReceiptFiltersForm(props: {
  values: Partial<Record<FilterKey, string>>;
  onApply: (values: Partial<Record<FilterKey, string | undefined>>) => void;
}) {
  const [draft, setDraft] = useState(props.values);
  useEffect(() => setDraft(props.values), [props.values]);
  const set = (key: FilterKey, value: string | undefined) =>
    setDraft((d) => ({ ...d, [key]: value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onApply(Object.fromEntries(FILTER_KEYS.map((k) => [k, draft[k] || undefined])));
  };
  const active = FILTER_KEYS.some((k) => props.values[k]);
  return (
    <form className="filters" onSubmit={submit} aria-label="Receipt filters">
      <Field label="From">
        {(control) => (
          <input
            {...control}
            type="datetime-local"
            value={toLocalInput(draft.since)}
            onChange={(e) => set('since', fromLocalInput(e.target.value))}
          />
        )}
      </Field>
      <Field label="Until">
        {(control) => (
          <input
            {...control}
            type="datetime-local"
            value={toLocalInput(draft.until)}
            onChange={(e) => set('until', fromLocalInput(e.target.value))}
          />
        )}
      </Field>
      {TEXT_FILTERS.map((filter) => (
        <Field key={filter.key} label={filter.label}>
          {(control) => (
            <input
              {...control}
              type="search"
              placeholder={filter.hint ?? ''}
              value={draft[filter.key] ?? ''}
              onChange={(e) => set(filter.key, e.target.value)}
            />
          )}
        </Field>
      ))}
      <Field label="Outcome">
        {(control) => (
          <select
            {...control}
            value={draft.outcome ?? ''}
            onChange={(e) => set('outcome', e.target.value || undefined)}
          >
            <option value="">any</option>
            <option value="ok">ok</option>
            <option value="blocked">blocked</option>
            <option value="error">error</option>
          </select>
        )}
      </Field>
      <Field label="Surface">
        {(control) => (
          <select
            {...control}
            value={draft.surface ?? ''}
            onChange={(e) => set('surface', e.target.value || undefined)}
          >
            <option value="">any</option>
            {Surface.options.map((surface) => (
              <option key={surface} value={surface}>
                {surface}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div className="filter-actions">
        <button type="submit" className="button button-primary">
          Apply filters
        </button>
        {active ? (
          <button
            type="button"
            className="button button-quiet"
            onClick={() =>
              props.onApply(Object.fromEntries(FILTER_KEYS.map((k) => [k, undefined])))
            }
          >
            Clear
          </button>
        ) : null}
      </div>
    </form>
  );
}
