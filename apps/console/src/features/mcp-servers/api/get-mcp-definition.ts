import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { mcpServerKeys } from './keys.ts';

export function fetchMcpDefinition(
  client: ApiClient,
  name: string,
  hash: string,
  signal?: AbortSignal,
) {
  return client.call('mcpServers.definition', {
    params: { name, hash },
    ...(signal ? { signal } : {}),
  });
}

export function mcpDefinitionQueryOptions(client: ApiClient, name: string, hash: string) {
  return queryOptions({
    queryKey: mcpServerKeys.definition(name, hash),
    queryFn: ({ signal }) => fetchMcpDefinition(client, name, hash, signal),
    // Content-addressed: a hash's definition never changes.
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useMcpDefinition(name: string, hash: string) {
  return useQuery(mcpDefinitionQueryOptions(useApiClient(), name, hash));
}
