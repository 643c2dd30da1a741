import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { receiptKeys } from './keys.ts';

export function fetchReceipt(client: ApiClient, id: string, signal?: AbortSignal) {
  return client.call('receipts.get', { params: { id }, ...(signal ? { signal } : {}) });
}

export function receiptQueryOptions(client: ApiClient, id: string) {
  return queryOptions({
    queryKey: receiptKeys.detail(id),
    queryFn: ({ signal }) => fetchReceipt(client, id, signal),
    // A stored receipt never changes.
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useReceipt(id: string) {
  return useQuery(receiptQueryOptions(useApiClient(), id));
}
