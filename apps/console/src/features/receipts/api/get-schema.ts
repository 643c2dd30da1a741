import { queryOptions, useQueries, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { receiptKeys } from './keys.ts';

/** A tool declaration from the content-addressed schema store. */
export function fetchSchema(client: ApiClient, hash: string, signal?: AbortSignal) {
  return client.call('receipts.getSchema', { params: { hash }, ...(signal ? { signal } : {}) });
}

export function schemaQueryOptions(client: ApiClient, hash: string) {
  return queryOptions({
    queryKey: receiptKeys.schema(hash),
    queryFn: ({ signal }) => fetchSchema(client, hash, signal),
    // Content-addressed: the same hash is always the same document.
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
}

export function useSchema(hash: string) {
  return useQuery(schemaQueryOptions(useApiClient(), hash));
}

export function useSchemas(hashes: ReadonlyArray<string>) {
  const client = useApiClient();
  return useQueries({ queries: hashes.map((hash) => schemaQueryOptions(client, hash)) });
}
