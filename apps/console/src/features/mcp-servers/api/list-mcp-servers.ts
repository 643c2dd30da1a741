import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { allPages, pageRequest } from '../../../shared/api/all-pages.ts';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { mcpServerKeys } from './keys.ts';

/** Gateways report what servers list as agents use them: drifts appear while the page is open. */
export const MCP_REFRESH_MS = 5_000;

/** Every McpServer, by name. */
export async function fetchMcpServers(client: ApiClient, signal?: AbortSignal) {
  const items = await allPages((next) => client.call('mcpServers.list', pageRequest(next, signal)));
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
