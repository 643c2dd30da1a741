import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { auditKeys } from './keys.ts';

export interface AuditFilters {
  kind?: string;
  name?: string;
  actor?: string;
  since?: string;
  until?: string;
}

export function fetchAuditPage(
  client: ApiClient,
  filters: AuditFilters,
  cursor: string | undefined,
  signal?: AbortSignal,
) {
  return client.call('audit.list', {
    query: { ...filters, limit: 100, ...(cursor ? { continue: cursor } : {}) },
    ...(signal ? { signal } : {}),
  });
}

export function auditInfiniteQueryOptions(client: ApiClient, filters: AuditFilters) {
  return infiniteQueryOptions({
    queryKey: auditKeys.list(filters),
    queryFn: ({ pageParam, signal }) => fetchAuditPage(client, filters, pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.metadata.continue,
  });
}

export function useAuditLog(filters: AuditFilters) {
  return useInfiniteQuery(auditInfiniteQueryOptions(useApiClient(), filters));
}
