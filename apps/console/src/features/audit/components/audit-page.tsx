import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { useUrlState } from '../../../shared/lib/search-params.ts';
import { HashBadge, Pill, Time } from '../../../shared/ui/badges.tsx';
import { Field } from '../../../shared/ui/field.tsx';
import { PageHeader } from '../../../shared/ui/page.tsx';
import { Empty, ErrorState, Loading } from '../../../shared/ui/states.tsx';
import { type AuditFilters, useAuditLog } from '../api/list-audit.ts';
import { type AuditRow, foldAuditEntries } from './audit-fold.ts';
import { auditRangeQuery } from './audit-range.ts';
import { AuditTimeRange } from './audit-time-range.tsx';
import { objectLink } from './object-link.ts';

const TEXT_KEYS = ['kind', 'name', 'actor'] as const;
const KEYS = [...TEXT_KEYS, 'range', 'since', 'until'] as const;
/** Folded rows fill a page slowly (a gateway reports every 30 s): read on up to this many pages. */
const AUTO_PAGES = 10;
const ROWS_WANTED = 25;

/** Who changed what, when, with the spec hash before and after. Append-only, newest first. */
export function AuditPage() {
  const [values, setValues] = useUrlState(KEYS);
  const minute = Math.floor(Date.now() / 60_000);
  const filters: AuditFilters = useMemo(
    () => ({
      ...(values.kind ? { kind: values.kind } : {}),
      ...(values.name ? { name: values.name } : {}),
      ...(values.actor ? { actor: values.actor } : {}),
      ...auditRangeQuery(values, minute * 60_000),
    }),
    [values, minute],
  );
  const log = useAuditLog(filters);
  const [draft, setDraft] = useState<Partial<Record<(typeof TEXT_KEYS)[number], string>>>(values);
  useEffect(() => setDraft(values), [values]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setValues({
      kind: draft.kind || undefined,
      name: draft.name || undefined,
      actor: draft.actor || undefined,
    });
  };
  const rows = useMemo(
    () => foldAuditEntries(log.data?.pages.flatMap((p) => p.items) ?? []),
    [log.data],
  );
  const pages = log.data?.pages.length ?? 0;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = log;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && rows.length < ROWS_WANTED && pages < AUTO_PAGES) {
      void fetchNextPage();
    }
  }, [hasNextPage, isFetchingNextPage, fetchNextPage, rows.length, pages]);
  return (
    <>
      <PageHeader title="Audit log" subtitle="Every control-plane change, newest first" />
      <AuditTimeRange values={values} onChange={(next) => setValues(next)} />
      <form className="filters" onSubmit={submit} aria-label="Audit log filters">
        {TEXT_KEYS.map((key) => (
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
      ) : log.error && rows.length === 0 ? (
        <ErrorState error={log.error} retry={() => void log.refetch()} />
      ) : rows.length === 0 ? (
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
              {rows.map((row) => (
                <AuditTableRow key={row.entry.id} row={row} />
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

function AuditTableRow({ row }: { row: AuditRow }) {
  const { entry, count } = row;
  const link = objectLink(entry);
  const object = `${entry.kind}/${entry.name}`;
  return (
    <tr>
      <td>
        <Time value={entry.at} />
        {count > 1 ? (
          <>
            {' '}
            <span className="muted">
              (since <Time value={row.firstAt} />)
            </span>
          </>
        ) : null}
      </td>
      <td>{entry.actor}</td>
      <td>
        <Pill tone={entry.verb === 'delete' || entry.verb.includes('revoke') ? 'bad' : 'info'}>
          {entry.verb}
        </Pill>
        {count > 1 ? (
          <span className="fold-count" title={`${count} consecutive entries folded into one row`}>
            ×{count}
          </span>
        ) : null}
      </td>
      <th scope="row">
        {link ? (
          <Link to={link.to} title={`Open the ${link.label}`}>
            {object}
          </Link>
        ) : (
          object
        )}
      </th>
      <td>
        <HashBadge hash={row.beforeHash} label="before" />
      </td>
      <td>
        <HashBadge hash={entry.afterHash} label="after" />
      </td>
    </tr>
  );
}
