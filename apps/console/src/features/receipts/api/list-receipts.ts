import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import type { ApiClient, ReceiptQuery } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { receiptKeys } from './keys.ts';

/** The filters of the receipts page (everything of the query but paging). */
export type ReceiptFilters = Omit<ReceiptQuery, 'limit' | 'continue'>;

export const RECEIPTS_PAGE_SIZE = 100;

/** One keyset page of receipts, newest first. */
export function fetchReceiptsPage(
  client: ApiClient,
  filters: ReceiptFilters,
  cursor: string | undefined,
  signal?: AbortSignal,
) {
  return client.call('receipts.list', {
    query: { ...filters, limit: RECEIPTS_PAGE_SIZE, ...(cursor ? { continue: cursor } : {}) },
    ...(signal ? { signal } : {}),
  });
}

export function receiptsInfiniteQueryOptions(client: ApiClient, filters: ReceiptFilters) {
  return infiniteQueryOptions({
    queryKey: receiptKeys.list(filters),
    queryFn: ({ pageParam, signal }) => fetchReceiptsPage(client, filters, pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.metadata.continue,
    // Receipts are append-only; a page once loaded stays right. New ones show on refetch.
    staleTime: 30_000,
  });
}

export function useReceipts(filters: ReceiptFilters) {
  return useInfiniteQuery(receiptsInfiniteQueryOptions(useApiClient(), filters));
}
