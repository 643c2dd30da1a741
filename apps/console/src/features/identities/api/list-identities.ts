import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { identityKeys } from './keys.ts';

export async function fetchIdentities(client: ApiClient, signal?: AbortSignal) {
  const list = await client.call('identities.list', {
    query: { limit: 1000 },
    ...(signal ? { signal } : {}),
  });
  return list.items;
}

export function identitiesQueryOptions(client: ApiClient) {
  return queryOptions({
    queryKey: identityKeys.lists(),
    queryFn: ({ signal }) => fetchIdentities(client, signal),
  });
}

export function useIdentities() {
  return useQuery(identitiesQueryOptions(useApiClient()));
}
