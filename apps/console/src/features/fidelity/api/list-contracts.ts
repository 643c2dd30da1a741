import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { fidelityKeys } from './keys.ts';

export async function fetchContracts(client: ApiClient, signal?: AbortSignal) {
  const list = await client.call('capabilityContracts.list', {
    query: { limit: 1000 },
    ...(signal ? { signal } : {}),
  });
  return list.items;
}

export function contractsQueryOptions(client: ApiClient) {
  return queryOptions({
    queryKey: fidelityKeys.contracts(),
    queryFn: ({ signal }) => fetchContracts(client, signal),
  });
}

export function useContracts() {
  return useQuery(contractsQueryOptions(useApiClient()));
}
