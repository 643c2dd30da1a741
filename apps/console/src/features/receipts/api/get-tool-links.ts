import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { receiptKeys } from './keys.ts';

export function fetchToolLinks(client: ApiClient, id: string, signal?: AbortSignal) {
  return client.call('receipts.toolLinks', { params: { id }, ...(signal ? { signal } : {}) });
}

export function toolLinksQueryOptions(client: ApiClient, id: string) {
  return queryOptions({
    queryKey: receiptKeys.toolLinks(id),
    queryFn: ({ signal }) => fetchToolLinks(client, id, signal),
    // A call's result arrives with the agent's next request: worth a fresh look now and then.
    staleTime: 30_000,
  });
}

/** The receipt's calls linked to their results' receipts and back; off when it has neither. */
export function useToolLinks(id: string, enabled: boolean) {
  return useQuery({ ...toolLinksQueryOptions(useApiClient(), id), enabled });
}
