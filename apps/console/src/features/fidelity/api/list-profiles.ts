import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { fidelityKeys } from './keys.ts';

export async function fetchProfiles(client: ApiClient, signal?: AbortSignal) {
  const list = await client.call('providerProfiles.list', {
    query: { limit: 1000 },
    ...(signal ? { signal } : {}),
  });
  return list.items;
}

export function profilesQueryOptions(client: ApiClient) {
  return queryOptions({
    queryKey: fidelityKeys.profiles(),
    queryFn: ({ signal }) => fetchProfiles(client, signal),
  });
}

export function useProfiles() {
  return useQuery(profilesQueryOptions(useApiClient()));
}
