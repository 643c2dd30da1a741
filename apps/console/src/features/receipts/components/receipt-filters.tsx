import type { ReceiptValueField } from '@toolgate/contract';
import { CAPABILITY_CONTRACT_IDS, ContractId, Surface } from '@toolgate/core';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { Field } from '../../../shared/ui/field.tsx';
import type { ReceiptFilters } from '../api/list-receipts.ts';
import { SuggestInput } from './suggest-input.tsx';

export const FILTER_KEYS = [
  'since',
  'until',
  'gateway',
  'identity',
  'toolContains',
  'tool',
  'rule',
  'policy',
  'outcome',
  'surface',
  'contract',
  'order',
] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

const PICKERS: Array<{ key: FilterKey & ReceiptValueField; label: string; hint?: string }> = [
  { key: 'gateway', label: 'Gateway' },
  { key: 'identity', label: 'Identity', hint: 'human, service or session' },
  { key: 'policy', label: 'Policy' },
  { key: 'rule', label: 'Rule', hint: 'rule id or policy/rule' },
  { key: 'tool', label: 'Tool (exact)' },
];

/** Quick ranges: from this long ago until now. */
export const QUICK_RANGES = [
  { label: 'Last hour', ms: 3_600_000 },
  { label: 'Last day', ms: 86_400_000 },
  { label: 'Last week', ms: 7 * 86_400_000 },
] as const;

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

/** The form's message for a range that ends before it starts (the API refuses it too). */
export function rangeError(values: Partial<Record<FilterKey, string>>): string | undefined {
  const { since, until } = values;
  if (!since || !until) return undefined;
  return Date.parse(since) > Date.parse(until) ? '“Until” must not be before “From”.' : undefined;
}

/** The form's message for a contract id the API would refuse (it names the field too). */
export function contractError(values: Partial<Record<FilterKey, string>>): string | undefined {
  const { contract } = values;
  if (!contract || ContractId.safeParse(contract).success) return undefined;
  return 'A contract id looks like wardwright.web_search.v1.';
}

/** The URL's filter values as the API query; a hand-edited value the API would refuse is dropped. */
export function toReceiptFilters(values: Partial<Record<FilterKey, string>>): ReceiptFilters {
  const filters: ReceiptFilters = {};
  for (const key of FILTER_KEYS) {
    const value = values[key];
    if (!value) continue;
    if (key === 'outcome') {
      if (value === 'ok' || value === 'error' || value === 'blocked' || value === 'withheld') {
        filters.outcome = value;
      }
    } else if (key === 'surface') {
      const surface = Surface.safeParse(value);
      if (surface.success) filters.surface = surface.data;
    } else if (key === 'contract') {
      const contract = ContractId.safeParse(value);
      if (contract.success) filters.contract = contract.data;
    } else if (key === 'order') {
      if (value === 'oldest') filters.order = 'oldest';
    } else if (key === 'since' || key === 'until') {
      if (!Number.isNaN(Date.parse(value))) filters[key] = new Date(value).toISOString();
    } else if (key === 'toolContains') {
      filters.toolContains = value.slice(0, 64);
    } else filters[key] = value;
  }
  if (rangeError(filters)) delete filters.until;
  return filters;
}

/** The filter form; applies on submit (Enter) so typing does not fire a query per key. */
export function ReceiptFiltersForm(props: {
  values: Partial<Record<FilterKey, string>>;
  onApply: (values: Partial<Record<FilterKey, string | undefined>>) => void;
  now?: () => number;
}) {
  const [draft, setDraft] = useState(props.values);
  useEffect(() => setDraft(props.values), [props.values]);
  const set = (key: FilterKey, value: string | undefined) =>
    setDraft((d) => ({ ...d, [key]: value }));
  const invalidRange = rangeError(draft);
  const invalidContract = contractError(draft);
  const contractListId = useId();
  const apply = (values: Partial<Record<FilterKey, string | undefined>>) =>
    props.onApply(Object.fromEntries(FILTER_KEYS.map((k) => [k, values[k] || undefined])));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (invalidRange || invalidContract) return;
    apply(draft);
  };
  const quickRange = (ms: number) => {
    const now = (props.now ?? Date.now)();
    apply({ ...draft, since: new Date(now - ms).toISOString(), until: undefined });
  };
  const active = FILTER_KEYS.some((k) => k !== 'order' && props.values[k]);
  return (
    <form className="filters" onSubmit={submit} aria-label="Receipt filters" noValidate>
      <fieldset className="quick-ranges">
        <legend>Time range</legend>
        {QUICK_RANGES.map((range) => (
          <button
            key={range.label}
            type="button"
            className="button button-quiet"
            onClick={() => quickRange(range.ms)}
          >
            {range.label}
          </button>
        ))}
      </fieldset>
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
      <Field label="Until" error={invalidRange}>
        {(control) => (
          <input
            {...control}
            type="datetime-local"
            value={toLocalInput(draft.until)}
            onChange={(e) => set('until', fromLocalInput(e.target.value))}
          />
        )}
      </Field>
      <Field label="Tool name contains">
        {(control) => (
          <input
            {...control}
            type="search"
            maxLength={64}
            placeholder="e.g. pull_request"
            value={draft.toolContains ?? ''}
            onChange={(e) => set('toolContains', e.target.value)}
          />
        )}
      </Field>
      {PICKERS.map((picker) => (
        <Field key={picker.key} label={picker.label}>
          {(control) => (
            <SuggestInput
              field={picker.key}
              control={control}
              value={draft[picker.key] ?? ''}
              onChange={(value) => set(picker.key, value)}
              {...(picker.hint ? { placeholder: picker.hint } : {})}
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
            <option value="withheld">withheld</option>
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
      <Field label="Capability contract" error={invalidContract}>
        {(control) => (
          <>
            <input
              {...control}
              type="search"
              list={contractListId}
              autoComplete="off"
              maxLength={253}
              placeholder="e.g. wardwright.web_search.v1"
              value={draft.contract ?? ''}
              onChange={(e) => set('contract', e.target.value || undefined)}
            />
            <datalist id={contractListId}>
              {CAPABILITY_CONTRACT_IDS.map((id) => (
                <option key={id} value={id} />
              ))}
            </datalist>
          </>
        )}
      </Field>
      <Field label="Sort">
        {(control) => (
          <select
            {...control}
            value={props.values.order === 'oldest' ? 'oldest' : 'newest'}
            onChange={(e) =>
              props.onApply({ order: e.target.value === 'oldest' ? 'oldest' : undefined })
            }
          >
            <option value="newest">Newest first</option>
            <option value="oldest">Oldest first</option>
          </select>
        )}
      </Field>
      <div className="filter-actions">
        <button
          type="submit"
          className="button button-primary"
          disabled={Boolean(invalidRange || invalidContract)}
        >
          Apply filters
        </button>
        {active ? (
          <button
            type="button"
            className="button button-quiet"
            onClick={() =>
              props.onApply(
                Object.fromEntries(
                  FILTER_KEYS.map((k) => [k, k === 'order' ? props.values.order : undefined]),
                ),
              )
            }
          >
            Clear
          </button>
        ) : null}
      </div>
    </form>
  );
}
