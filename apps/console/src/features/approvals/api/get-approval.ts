import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { approvalKeys } from './keys.ts';
import { APPROVALS_REFRESH_MS } from './list-approvals.ts';

export function fetchApproval(client: ApiClient, name: string, signal?: AbortSignal) {
  return client.call('toolCallApprovals.get', { params: { name }, ...(signal ? { signal } : {}) });
}

export function approvalQueryOptions(client: ApiClient, name: string) {
  return queryOptions({
    queryKey: approvalKeys.detail(name),
    queryFn: ({ signal }) => fetchApproval(client, name, signal),
    // Another operator may decide it, or it may expire, while it is on screen.
    refetchInterval: APPROVALS_REFRESH_MS,
  });
}

export function useApproval(name: string) {
  return useQuery(approvalQueryOptions(useApiClient(), name));
}
