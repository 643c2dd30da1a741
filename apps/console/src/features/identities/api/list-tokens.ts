import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { identityKeys } from './keys.ts';

/** An identity's tokens: metadata only, never the secret. */
export async function fetchTokens(client: ApiClient, name: string, signal?: AbortSignal) {
  const list = await client.call('tokens.listTokens', {
    params: { name },
    ...(signal ? { signal } : {}),
  });
  return list.items;
}

export function tokensQueryOptions(client: ApiClient, name: string) {
  return queryOptions({
    queryKey: identityKeys.tokens(name),
    queryFn: ({ signal }) => fetchTokens(client, name, signal),
  });
}

export function useTokens(name: string) {
  return useQuery(tokensQueryOptions(useApiClient(), name));
}
