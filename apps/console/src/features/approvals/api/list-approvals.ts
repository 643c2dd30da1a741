import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { type ApprovalState, approvalState, type ToolCallApproval } from '@toolgate/core';
import { allPages, pageRequest } from '../../../shared/api/all-pages.ts';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { useCan } from '../../../shared/auth/session.tsx';
import { approvalKeys } from './keys.ts';

/** Pending calls are agents waiting on a person: the list (and the nav count) stays this fresh. */
export const APPROVALS_REFRESH_MS = 2_000;

/** Every approval, newest request first. */
export async function fetchApprovals(
  client: ApiClient,
  signal?: AbortSignal,
): Promise<ToolCallApproval[]> {
  const items = await allPages((next) =>
    client.call('toolCallApprovals.list', pageRequest(next, signal)),
  );
  return items.sort((a, b) => requestedAt(b).localeCompare(requestedAt(a)));
}

export function requestedAt(approval: ToolCallApproval): string {
  return approval.status?.requestedAt ?? approval.metadata.creationTimestamp ?? '';
}

export function approvalsQueryOptions(client: ApiClient) {
  return queryOptions({
    queryKey: approvalKeys.lists(),
    queryFn: ({ signal }) => fetchApprovals(client, signal),
    refetchInterval: APPROVALS_REFRESH_MS,
  });
}

export function useApprovals() {
  return useQuery(approvalsQueryOptions(useApiClient()));
}

/** How many approvals are pending now (undefined while unknown, or for roles that cannot read). */
export function usePendingApprovalCount(): number | undefined {
  const canRead = useCan('toolCallApprovals.list');
  const query = useQuery({
    ...approvalsQueryOptions(useApiClient()),
    enabled: canRead,
    select: (items) => countIn(items, 'pending', Date.now()),
  });
  return canRead ? query.data : undefined;
}

export function countIn(items: ReadonlyArray<ToolCallApproval>, state: ApprovalState, now: number) {
  return items.filter((item) => approvalState(item, now) === state).length;
}
