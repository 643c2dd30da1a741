import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import type { HostedTool } from '@toolgate/core';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { hostedToolKeys } from './keys.ts';

/** Every HostedTool, by name. */
export async function fetchHostedTools(client: ApiClient, signal?: AbortSignal) {
  const items: HostedTool[] = [];
  let next: string | undefined;
  do {
    const page = await client.call('hostedTools.list', {
      query: { limit: 1000, ...(next ? { continue: next } : {}) },
      ...(signal ? { signal } : {}),
    });
    items.push(...page.items);
    next = page.metadata.continue;
  } while (next);
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
