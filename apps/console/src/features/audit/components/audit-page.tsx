import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { useUrlState } from '../../../shared/lib/search-params.ts';
import { HashBadge, Pill, Time } from '../../../shared/ui/badges.tsx';
import { Field } from '../../../shared/ui/field.tsx';
import { PageHeader } from '../../../shared/ui/page.tsx';
import { Empty, ErrorState, Loading } from '../../../shared/ui/states.tsx';
import { type AuditFilters, useAuditLog } from '../api/list-audit.ts';

const KEYS = ['kind', 'name', 'actor'] as const;

/** Who changed what, when, with the spec hash before and after. Append-only, newest first. */
export function AuditPage() {
  const [values, setValues] = useUrlState(KEYS);
  const filters: AuditFilters = useMemo(() => ({ ...values }), [values]);
  const log = useAuditLog(filters);
  const [draft, setDraft] = useState(values);
  useEffect(() => setDraft(values), [values]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setValues({
      kind: draft.kind || undefined,
      name: draft.name || undefined,
      actor: draft.actor || undefined,
    });
  };
  const entries = log.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <PageHeader title="Audit log" subtitle="Every control-plane change, newest first" />
      <form className="filters" onSubmit={submit} aria-label="Audit log filters">
        {KEYS.map((key) => (
          <Field key={key} label={key[0]?.toUpperCase() + key.slice(1)}>
            {(control) => (
              <input
                {...control}
                type="search"
                value={draft[key] ?? ''}
                onChange={(e) => setDraft({ ...draft, [key]: e.target.value })}
              />
            )}
          </Field>
        ))}
        <div className="filter-actions">
          <button type="submit" className="button button-primary">
            Apply filters
          </button>
        </div>
      </form>
      {log.isPending ? (
        <Loading label="Loading the audit log…" />
      ) : log.error && entries.length === 0 ? (
        <ErrorState error={log.error} retry={() => void log.refetch()} />
      ) : entries.length === 0 ? (
        <Empty title="No audit entries match" />
      ) : (
        <div className="table-wrap">
          <table className="table">
            <caption className="sr-only">Audit log</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Actor</th>
                <th scope="col">Verb</th>
                <th scope="col">Object</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.id}>
                  <td>
                    <Time value={entry.at} />
                  </td>
                  <td>{entry.actor}</td>
                  <td>
                    <Pill
                      tone={
                        entry.verb === 'delete' || entry.verb.includes('revoke') ? 'bad' : 'info'
                      }
                    >
                      {entry.verb}
                    </Pill>
                  </td>
                  <th scope="row">
                    {entry.kind}/{entry.name}
                  </th>
                  <td>
                    <HashBadge hash={entry.beforeHash} label="before" />
                  </td>
                  <td>
                    <HashBadge hash={entry.afterHash} label="after" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {log.hasNextPage ? (
            <button
              type="button"
              className="button"
              onClick={() => void log.fetchNextPage()}
              disabled={log.isFetchingNextPage}
            >
              {log.isFetchingNextPage ? 'Loading…' : 'Load more'}
            </button>
          ) : null}
        </div>
      )}
    </>
  );
}
