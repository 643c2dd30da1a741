import { useMemo } from 'react';
import { Link } from 'react-router';
import { useUrlState } from '../../../shared/lib/search-params.ts';
import { PageHeader } from '../../../shared/ui/page.tsx';
import { Empty, ErrorState, Loading } from '../../../shared/ui/states.tsx';
import { useReceipts } from '../api/list-receipts.ts';
import { countLabel, useReceiptCount } from '../api/receipt-facets.ts';
import { ExportMenu } from './export-menu.tsx';
import { FILTER_KEYS, ReceiptFiltersForm, toReceiptFilters } from './receipt-filters.tsx';
import { ReceiptsTable } from './receipts-table.tsx';

/** Receipts with filters kept in the URL, keyset-paged into a virtualized table. */
export function ReceiptsPage() {
  const [values, setValues] = useUrlState(FILTER_KEYS);
  const filters = useMemo(() => toReceiptFilters(values), [values]);
  const { order, ...countFilters } = filters;
  const receipts = useReceipts(filters);
  const count = useReceiptCount(countFilters);
  const rows = useMemo(
    () => receipts.data?.pages.flatMap((page) => page.items) ?? [],
    [receipts.data],
  );
  const filtered = Object.keys(countFilters).length > 0;
  // Only asked when a filtered list is empty: is there no match, or no traffic at all?
  const anyTraffic = useReceiptCount({}, filtered && !receipts.isPending && rows.length === 0);
  const { fetchNextPage } = receipts;
  const loadMore = useMemo(() => () => void fetchNextPage(), [fetchNextPage]);
  const noTraffic = !filtered ? rows.length === 0 : anyTraffic.data?.count === 0;

  return (
    <>
      <PageHeader
        title="Receipts"
        subtitle={`One receipt per gateway request, ${order === 'oldest' ? 'oldest' : 'newest'} first`}
      />
      <ReceiptFiltersForm values={values} onApply={setValues} />
      <div className="toolbar receipts-toolbar">
        <p className="muted" role="status" aria-live="polite" data-testid="receipt-count">
          {count.data
            ? `${countLabel(count.data)} receipt${count.data.count === 1 && !count.data.capped ? '' : 's'} ${filtered ? 'match' : 'in total'}`
            : ''}
          {receipts.isPending || rows.length === 0
            ? ''
            : ` · ${rows.length.toLocaleString('en-US')} loaded${receipts.hasNextPage ? ', more available' : ''}`}
        </p>
        {rows.length > 0 ? <ExportMenu filters={filters} /> : null}
      </div>
      {receipts.isPending ? (
        <Loading label="Loading receipts…" />
      ) : receipts.error && rows.length === 0 ? (
        <ErrorState error={receipts.error} retry={() => void receipts.refetch()} />
      ) : rows.length === 0 && noTraffic ? (
        <Empty title="No traffic yet">
          No gateway has sent a receipt. Point an agent at a gateway (see{' '}
          <Link to="/gateways">Gateways</Link>) and every request it makes shows up here.
        </Empty>
      ) : rows.length === 0 ? (
        <Empty title="No receipts match">
          Try a wider time range or fewer filters.{' '}
          <button
            type="button"
            className="button button-quiet"
            onClick={() =>
              setValues(
                Object.fromEntries(
                  FILTER_KEYS.map((k) => [k, k === 'order' ? values.order : undefined]),
                ),
              )
            }
          >
            Clear filters
          </button>
        </Empty>
      ) : (
        <ReceiptsTable
          rows={rows}
          hasMore={receipts.hasNextPage}
          loadingMore={receipts.isFetchingNextPage}
          loadMore={loadMore}
          order={order ?? 'newest'}
        />
      )}
    </>
  );
}
