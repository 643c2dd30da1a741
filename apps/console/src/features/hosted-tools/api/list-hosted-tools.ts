import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { allPages, pageRequest } from '../../../shared/api/all-pages.ts';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { hostedToolKeys } from './keys.ts';

/** Every HostedTool, by name. */
export async function fetchHostedTools(client: ApiClient, signal?: AbortSignal) {
  const items = await allPages((next) =>
    client.call('hostedTools.list', pageRequest(next, signal)),
  );
  return items;
}

export function hostedToolsQueryOptions(client: ApiClient) {
  return queryOptions({
    queryKey: hostedToolKeys.lists(),
    queryFn: ({ signal }) => fetchHostedTools(client, signal),
  });
}

export function useHostedTools() {
  return useQuery(hostedToolsQueryOptions(useApiClient()));
}
