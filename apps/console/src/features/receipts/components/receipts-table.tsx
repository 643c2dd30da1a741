import { type ColumnDef, flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { ReceiptSummary } from '@toolgate/contract';
import { useEffect, useMemo, useRef } from 'react';
import { Link } from 'react-router';
import { Pill } from '../../../shared/ui/badges.tsx';

const ROW_HEIGHT = 37;

/** The identity's name, marked when no token proved it (header claims are anyone's to send). */
function identityOf(r: ReceiptSummary): string {
  const name = r.identity.human ?? r.identity.service ?? r.identity.session ?? '—';
  return r.identity.binding === 'verified' ? name : `${name} (${r.identity.binding})`;
}

const OUTCOME_TONE = { ok: 'good', blocked: 'warn', error: 'bad' } as const;

const columns: Array<ColumnDef<ReceiptSummary>> = [
  {
    id: 'time',
    header: 'Time',
    cell: ({ row }) => (
      <Link to={`/receipts/${encodeURIComponent(row.original.id)}`} title={row.original.id}>
        {formatTime(row.original.receivedAt)}
      </Link>
    ),
  },
  { id: 'gateway', header: 'Gateway', accessorKey: 'gateway' },
  { id: 'identity', header: 'Identity', accessorFn: identityOf },
  { id: 'model', header: 'Model', accessorKey: 'model' },
  {
    id: 'tools',
    header: 'Tools',
    cell: ({ row }) => (
      <span title={row.original.tools.join(', ')}>{row.original.tools.join(', ') || '—'}</span>
    ),
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
    cell: ({ row }) => (
      <Pill tone={OUTCOME_TONE[row.original.outcome]}>
        {row.original.outcome} {row.original.status}
      </Pill>
    ),
  },
];

const timeFormat = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});
function formatTime(iso: string): string {
  return timeFormat.format(new Date(iso));
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
      <table className="table table-fixed" aria-rowcount={hasMore ? -1 : rows.length + 1}>
        <caption className="sr-only">Receipts, newest first</caption>
        <colgroup>
          <col style={{ width: '12rem' }} />
          <col style={{ width: '9rem' }} />
          <col style={{ width: '9rem' }} />
          <col style={{ width: '10rem' }} />
          <col />
          <col style={{ width: '14rem' }} />
          <col style={{ width: '8rem' }} />
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
