import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { gatewayKeys } from './keys.ts';

export async function fetchGateways(client: ApiClient, signal?: AbortSignal) {
  const list = await client.call('gateways.list', {
    query: { limit: 1000 },
    ...(signal ? { signal } : {}),
  });
  return list.items;
}

export function gatewaysQueryOptions(client: ApiClient) {
  return queryOptions({
    queryKey: gatewayKeys.lists(),
    queryFn: ({ signal }) => fetchGateways(client, signal),
    // Gateways report in on their own; keep the fleet view fresh.
    refetchInterval: 15_000,
  });
}

export function useGateways() {
  return useQuery(gatewaysQueryOptions(useApiClient()));
}
