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
  changeNote?: string,
): Promise<MediationPolicy> {
  const body = object as never;
  const query = changeNote ? { changeNote } : {};
  const stored = existing
    ? client.call('mediationPolicies.replace', { params: { name: existing }, query, body })
    : client.call('mediationPolicies.create', { query, body });
  return stored;
}

/**
 * `onStored` runs first, before the new state re-renders anything: the editor is keyed by the
 * policy's resourceVersion, so it is replaced by then and its per-call callbacks never run.
 */
export function useApplyPolicy(
  existing: string | undefined,
  onStored?: (policy: MediationPolicy, changeNote: string | undefined) => void,
) {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { object: Record<string, unknown>; changeNote?: string }) =>
      applyPolicy(client, existing, input.object, input.changeNote),
    onSuccess: async (policy, input) => {
      onStored?.(policy, input.changeNote);
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
