import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { hostedToolKeys } from './keys.ts';

export function fetchHostedTool(client: ApiClient, name: string, signal?: AbortSignal) {
  return client.call('hostedTools.get', { params: { name }, ...(signal ? { signal } : {}) });
}

export function hostedToolQueryOptions(client: ApiClient, name: string) {
  return queryOptions({
    queryKey: hostedToolKeys.detail(name),
    queryFn: ({ signal }) => fetchHostedTool(client, name, signal),
  });
}

export function useHostedTool(name: string) {
  return useQuery(hostedToolQueryOptions(useApiClient(), name));
}
