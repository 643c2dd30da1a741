import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { gatewayKeys } from './keys.ts';

/** Every gateway against the bundle the API would serve it now (desired vs applied, state). */
export async function fetchGatewaySync(client: ApiClient, signal?: AbortSignal) {
  const list = await client.call('gatewaySync.list', { ...(signal ? { signal } : {}) });
  return list.items;
}

export function gatewaySyncQueryOptions(client: ApiClient) {
  return queryOptions({
    queryKey: gatewayKeys.sync(),
    queryFn: ({ signal }) => fetchGatewaySync(client, signal),
    refetchInterval: 15_000,
  });
}

export function useGatewaySync() {
  return useQuery(gatewaySyncQueryOptions(useApiClient()));
}
