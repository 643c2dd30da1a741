import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { policyKeys } from './keys.ts';

/** Every generation of a policy, newest first. */
export async function fetchRevisions(client: ApiClient, name: string, signal?: AbortSignal) {
  const list = await client.call('policies.revisions', {
    params: { name },
    ...(signal ? { signal } : {}),
  });
  return list.items;
}

export function revisionsQueryOptions(client: ApiClient, name: string) {
  return queryOptions({
    queryKey: policyKeys.revisions(name),
    queryFn: ({ signal }) => fetchRevisions(client, name, signal),
  });
}

export function useRevisions(name: string) {
  return useQuery(revisionsQueryOptions(useApiClient(), name));
}
