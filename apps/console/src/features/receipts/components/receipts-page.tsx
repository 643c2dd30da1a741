import { useMemo } from 'react';
import { useUrlState } from '../../../shared/lib/search-params.ts';
import { PageHeader } from '../../../shared/ui/page.tsx';
import { Empty, ErrorState, Loading } from '../../../shared/ui/states.tsx';
import { useReceipts } from '../api/list-receipts.ts';
import { FILTER_KEYS, ReceiptFiltersForm, toReceiptFilters } from './receipt-filters.tsx';
import { ReceiptsTable } from './receipts-table.tsx';

/** Receipts with filters kept in the URL, keyset-paged into a virtualized table. */
export function ReceiptsPage() {
  const [values, setValues] = useUrlState(FILTER_KEYS);
  const filters = useMemo(() => toReceiptFilters(values), [values]);
  const receipts = useReceipts(filters);
  const rows = useMemo(
    () => receipts.data?.pages.flatMap((page) => page.items) ?? [],
    [receipts.data],
  );
  const { fetchNextPage } = receipts;
  const loadMore = useMemo(() => () => void fetchNextPage(), [fetchNextPage]);

  return (
    <>
      <PageHeader title="Receipts" subtitle="One receipt per gateway request, newest first" />
      <ReceiptFiltersForm values={values} onApply={setValues} />
      <p className="muted" role="status" aria-live="polite">
        {receipts.isPending
          ? ''
          : `${rows.length.toLocaleString()} receipt${rows.length === 1 ? '' : 's'} loaded${receipts.hasNextPage ? ', more available' : ''}`}
      </p>
      {receipts.isPending ? (
        <Loading label="Loading receipts…" />
      ) : receipts.error && rows.length === 0 ? (
        <ErrorState error={receipts.error} retry={() => void receipts.refetch()} />
      ) : rows.length === 0 ? (
        <Empty title="No receipts match">Try a wider time range or fewer filters.</Empty>
      ) : (
        <ReceiptsTable
          rows={rows}
          hasMore={receipts.hasNextPage}
          loadingMore={receipts.isFetchingNextPage}
          loadMore={loadMore}
        />
      )}
    </>
  );
}
