import { type ColumnDef, flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { ReceiptSummary } from '@toolgate/contract';
import { useEffect, useMemo, useRef } from 'react';
import { Link } from 'react-router';
import { Pill } from '../../../shared/ui/badges.tsx';
import { outcomeHeadline, reasonText } from './outcome-headline.ts';

const ROW_HEIGHT = 37;

/** The identity's name, marked when no token proved it (header claims are anyone's to send). */
function identityOf(r: ReceiptSummary): string {
  const name = r.identity.human ?? r.identity.service ?? r.identity.session ?? '—';
  return r.identity.binding === 'verified' ? name : `${name} (${r.identity.binding})`;
}

/**
 * The tools the provider called, each withheld one marked with why; the offered set (often
 * dozens of tools) only on hover, since it says nothing about what happened.
 */
function CalledTools({ row }: { row: ReceiptSummary }) {
  const offered = `offered: ${row.tools.join(', ') || 'none'}`;
  if (row.callCount === 0) {
    return (
      <span className="muted" title={offered}>
        no calls
      </span>
    );
  }
  const more = row.callCount - row.calls.length;
  return (
    <span title={offered} className="called-tools">
      {row.calls.map((call, i) => {
        const key = `${i}:${call.name}`;
        if (call.state === 'blocked' || call.state === 'deferred') {
          const why = call.state === 'deferred' ? 'approval pending' : reasonText(call.reason);
          return (
            <Pill key={key} tone={call.state === 'blocked' ? 'bad' : 'warn'}>
              {call.state === 'blocked' ? 'blocked' : 'withheld'} {call.name}
              {why ? ` (${why})` : ''}
            </Pill>
          );
        }
        return <code key={key}>{call.name}</code>;
      })}
      {more > 0 ? <span className="muted"> +{more} more</span> : null}
    </span>
  );
}

const columns: Array<ColumnDef<ReceiptSummary>> = [
  {
    id: 'time',
    header: 'Time',
    cell: ({ row }) => (
      <Link to={`/receipts/${encodeURIComponent(row.original.id)}`} title={row.original.id}>
        <time dateTime={row.original.receivedAt}>{formatTime(row.original.receivedAt)}</time>
      </Link>
    ),
  },
  { id: 'gateway', header: 'Gateway', accessorKey: 'gateway' },
  { id: 'identity', header: 'Identity', accessorFn: identityOf },
  { id: 'model', header: 'Model', accessorKey: 'model' },
  {
    id: 'calls',
    header: 'Tools called',
    cell: ({ row }) => <CalledTools row={row.original} />,
  },
  {
    id: 'rules',
    header: 'Rules',
    cell: ({ row }) => (
      <span title={row.original.rules.join(', ')}>{row.original.rules.join(', ') || '—'}</span>
    ),
  },
  {
    id: 'outcome',
    header: 'Outcome',
    cell: ({ row }) => {
      const headline = outcomeHeadline(row.original);
      return (
        <Pill tone={headline.tone} title={headline.text}>
          {headline.short}
        </Pill>
      );
    },
  },
];

/**
 * `2026-03-01 14:03:22` in the browser's zone: the full time, one fixed width whatever the
 * locale (a locale's format can run past the column, and sorts badly by eye).
 */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(
    date.getHours(),
  )}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/**
 * Receipts as a virtualized table: only the rows in view are in the DOM, so a million loaded
 * rows scroll as smoothly as fifty. Scrolling near the end loads the next keyset page.
 */
export function ReceiptsTable(props: {
  rows: ReadonlyArray<ReceiptSummary>;
  hasMore: boolean;
  loadingMore: boolean;
  loadMore: () => void;
  order?: 'newest' | 'oldest';
}) {
  const data = useMemo(() => [...props.rows], [props.rows]);
  const table = useReactTable({
    data,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (r) => r.id,
  });
  const scroller = useRef<HTMLDivElement>(null);
  const rows = table.getRowModel().rows;
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 20,
    initialRect: { width: 1200, height: 900 },
  });
  const items = virtualizer.getVirtualItems();
  const last = items.at(-1)?.index ?? 0;
  const { hasMore, loadingMore, loadMore } = props;
  useEffect(() => {
    if (hasMore && !loadingMore && last >= rows.length - 30) loadMore();
  }, [last, rows.length, hasMore, loadingMore, loadMore]);

  const paddingTop = items[0]?.start ?? 0;
  const paddingBottom = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  const colSpan = columns.length;

  return (
    <div className="virtual-scroller" ref={scroller} tabIndex={-1}>
      <table
        className="table table-fixed receipts-table"
        aria-rowcount={hasMore ? -1 : rows.length + 1}
      >
        <caption className="sr-only">
          Receipts, {props.order === 'oldest' ? 'oldest' : 'newest'} first
        </caption>
        <colgroup>
          <col style={{ width: '12.75rem' }} />
          <col style={{ width: '9rem' }} />
          <col style={{ width: '9rem' }} />
          <col style={{ width: '10rem' }} />
          <col />
          <col style={{ width: '12rem' }} />
          <col style={{ width: '9rem' }} />
        </colgroup>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id} aria-rowindex={1}>
              {group.headers.map((header) => (
                <th key={header.id} scope="col">
                  {flexRender(header.column.columnDef.header, header.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {paddingTop > 0 ? (
            <tr className="spacer" style={{ height: paddingTop }}>
              <td colSpan={colSpan} />
            </tr>
          ) : null}
          {items.map((item) => {
            const row = rows[item.index];
            if (!row) return null;
            return (
              <tr
                key={row.id}
                aria-rowindex={item.index + 2}
                className="receipt-row"
                style={{ height: ROW_HEIGHT }}
              >
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id} className="truncate">
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </td>
                ))}
              </tr>
            );
          })}
          {paddingBottom > 0 ? (
            <tr className="spacer" style={{ height: paddingBottom }}>
              <td colSpan={colSpan} />
            </tr>
          ) : null}
        </tbody>
      </table>
      <div className="table-footer">
        {hasMore ? (
          <button type="button" className="button" onClick={loadMore} disabled={loadingMore}>
            {loadingMore ? 'Loading more…' : 'Load more'}
          </button>
        ) : (
          <span className="muted">End of results</span>
        )}
      </div>
    </div>
  );
}
