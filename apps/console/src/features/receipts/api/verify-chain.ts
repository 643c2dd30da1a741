import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { receiptKeys } from './keys.ts';

/** Verifies a gateway's whole receipt chain on the server; reports the first broken link. */
export function verifyChain(client: ApiClient, gateway: string, signal?: AbortSignal) {
  return client.call('receipts.verify', {
    params: { name: gateway },
    ...(signal ? { signal } : {}),
  });
}

export function chainQueryOptions(client: ApiClient, gateway: string) {
  return queryOptions({
    queryKey: receiptKeys.chain(gateway),
    queryFn: ({ signal }) => verifyChain(client, gateway, signal),
    staleTime: 60_000,
  });
}

export function useChainVerification(gateway: string) {
  return useQuery(chainQueryOptions(useApiClient(), gateway));
}
