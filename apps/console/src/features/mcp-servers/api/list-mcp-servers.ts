import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import type { McpServer } from '@toolgate/core';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { mcpServerKeys } from './keys.ts';

/** Gateways report what servers list as agents use them: drifts appear while the page is open. */
export const MCP_REFRESH_MS = 5_000;

/** Every McpServer, by name. */
export async function fetchMcpServers(client: ApiClient, signal?: AbortSignal) {
  const items: McpServer[] = [];
  let next: string | undefined;
  do {
    const page = await client.call('mcpServers.list', {
      query: { limit: 1000, ...(next ? { continue: next } : {}) },
      ...(signal ? { signal } : {}),
    });
    items.push(...page.items);
    next = page.metadata.continue;
  } while (next);
  return items;
}

export function mcpServersQueryOptions(client: ApiClient) {
  return queryOptions({
    queryKey: mcpServerKeys.lists(),
    queryFn: ({ signal }) => fetchMcpServers(client, signal),
    refetchInterval: MCP_REFRESH_MS,
  });
}

export function useMcpServers() {
  return useQuery(mcpServersQueryOptions(useApiClient()));
}
