import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { gatewayKeys } from './keys.ts';

export function fetchGateway(client: ApiClient, name: string, signal?: AbortSignal) {
  return client.call('gateways.get', { params: { name }, ...(signal ? { signal } : {}) });
}

export function gatewayQueryOptions(client: ApiClient, name: string) {
  return queryOptions({
    queryKey: gatewayKeys.detail(name),
    queryFn: ({ signal }) => fetchGateway(client, name, signal),
    refetchInterval: 15_000,
  });
}

export function useGateway(name: string) {
  return useQuery(gatewayQueryOptions(useApiClient(), name));
}
