import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { policyKeys } from './keys.ts';

/** The spec changes between two generations (revisions are immutable, so this never goes stale). */
export function fetchRevisionDiff(
  client: ApiClient,
  name: string,
  from: number,
  to: number,
  signal?: AbortSignal,
) {
  return client.call('policies.diff', {
    params: { name },
    body: { from, to },
    ...(signal ? { signal } : {}),
  });
}

export function revisionDiffQueryOptions(
  client: ApiClient,
  name: string,
  from: number,
  to: number,
) {
  return queryOptions({
    queryKey: policyKeys.diff(name, from, to),
    queryFn: ({ signal }) => fetchRevisionDiff(client, name, from, to, signal),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useRevisionDiff(name: string, from: number | undefined, to: number | undefined) {
  const client = useApiClient();
  return useQuery({
    ...revisionDiffQueryOptions(client, name, from ?? 0, to ?? 0),
    enabled: from !== undefined && to !== undefined,
  });
}
