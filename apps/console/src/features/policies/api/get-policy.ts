import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { policyKeys } from './keys.ts';

export async function fetchPolicy(client: ApiClient, name: string, signal?: AbortSignal) {
  const policy = await client.call('mediationPolicies.get', {
    params: { name },
    ...(signal ? { signal } : {}),
  });
  return policy;
}

export function policyQueryOptions(client: ApiClient, name: string) {
  return queryOptions({
    queryKey: policyKeys.detail(name),
    queryFn: ({ signal }) => fetchPolicy(client, name, signal),
  });
}

export function usePolicy(name: string) {
  return useQuery(policyQueryOptions(useApiClient(), name));
}
