import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import type { ApprovalDecisionInput } from '@toolgate/core';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { approvalKeys } from './keys.ts';

export function decideApproval(client: ApiClient, name: string, input: ApprovalDecisionInput) {
  return client.call('toolCallApprovals.decide', { params: { name }, body: input });
}

export function useDecideApproval(name: string) {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ApprovalDecisionInput) => decideApproval(client, name, input),
    // A 409 (someone else decided, or it expired) also means what is on screen is stale.
    onSettled: () => queryClient.invalidateQueries({ queryKey: approvalKeys.all }),
  });
}
