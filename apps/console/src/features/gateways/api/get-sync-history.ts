import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { gatewayKeys } from './keys.ts';

/** The gateway's sync state now and its status changes, newest first (50 at most). */
export function fetchSyncHistory(client: ApiClient, name: string, signal?: AbortSignal) {
  return client.call('gatewaySync.history', {
    params: { name },
    query: { limit: 50 },
    ...(signal ? { signal } : {}),
  });
}

export function syncHistoryQueryOptions(client: ApiClient, name: string) {
  return queryOptions({
    queryKey: gatewayKeys.history(name),
    queryFn: ({ signal }) => fetchSyncHistory(client, name, signal),
    refetchInterval: 15_000,
  });
}

export function useSyncHistory(name: string) {
  return useQuery(syncHistoryQueryOptions(useApiClient(), name));
}
