import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import type { MediationPolicy } from '@toolgate/core';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { policyKeys } from './keys.ts';

/** Creates the policy, or replaces it (a new generation) when `existing` names it. */
export function applyPolicy(
  client: ApiClient,
  existing: string | undefined,
  object: Record<string, unknown>,
): Promise<MediationPolicy> {
  const body = object as never;
  const stored = existing
    ? client.call('mediationPolicies.replace', { params: { name: existing }, body })
    : client.call('mediationPolicies.create', { body });
  return stored;
}

/** `onStored` runs first, before the new state re-renders anything (e.g. to drop the draft). */
export function useApplyPolicy(existing: string | undefined, onStored?: () => void) {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (object: Record<string, unknown>) => applyPolicy(client, existing, object),
    onSuccess: async (policy) => {
      onStored?.();
      queryClient.setQueryData(policyKeys.detail(policy.metadata.name), policy);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: policyKeys.lists() }),
        queryClient.invalidateQueries({ queryKey: policyKeys.revisions(policy.metadata.name) }),
      ]);
      // Drafts validated against the old state are moot; dropped, not refetched.
      queryClient.removeQueries({ queryKey: policyKeys.validations() });
    },
  });
}
