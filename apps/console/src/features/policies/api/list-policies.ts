import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { policyKeys } from './keys.ts';

export async function fetchPolicies(client: ApiClient, signal?: AbortSignal) {
  const list = await client.call('mediationPolicies.list', {
    query: { limit: 1000 },
    ...(signal ? { signal } : {}),
  });
  return list.items;
}

export function policiesQueryOptions(client: ApiClient) {
  return queryOptions({
    queryKey: policyKeys.lists(),
    queryFn: ({ signal }) => fetchPolicies(client, signal),
  });
}

export function usePolicies() {
  return useQuery(policiesQueryOptions(useApiClient()));
}
