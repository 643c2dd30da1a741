import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { mcpServerKeys } from './keys.ts';
import { MCP_REFRESH_MS } from './list-mcp-servers.ts';

export function fetchMcpServer(client: ApiClient, name: string, signal?: AbortSignal) {
  return client.call('mcpServers.get', { params: { name }, ...(signal ? { signal } : {}) });
}

export function mcpServerQueryOptions(client: ApiClient, name: string) {
  return queryOptions({
    queryKey: mcpServerKeys.detail(name),
    queryFn: ({ signal }) => fetchMcpServer(client, name, signal),
    refetchInterval: MCP_REFRESH_MS,
  });
}

export function useMcpServer(name: string) {
  return useQuery(mcpServerQueryOptions(useApiClient(), name));
}
