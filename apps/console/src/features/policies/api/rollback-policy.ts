import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { policyKeys } from './keys.ts';

/** A new generation with the spec of `toGeneration` (like `kubectl rollout undo`). */
export function rollbackPolicy(client: ApiClient, name: string, toGeneration: number) {
  return client.call('policies.rollback', { params: { name }, body: { toGeneration } });
}

export function useRollbackPolicy(name: string) {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (toGeneration: number) => rollbackPolicy(client, name, toGeneration),
    onSuccess: async (policy) => {
      queryClient.setQueryData(policyKeys.detail(name), policy);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: policyKeys.lists() }),
        queryClient.invalidateQueries({ queryKey: policyKeys.revisions(name) }),
      ]);
    },
  });
}
