import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { type ApiClient, ApiError } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import type { PolicyDraft } from '../draft/policy-draft.ts';
import { policyKeys } from './keys.ts';

export type Validation =
  | { valid: true }
  | { valid: false; message: string; causes: Array<{ field: string; message: string }> };

/**
 * Server-side validation of a draft: the same create / replace the apply would send, with
 * `dryRun=All`, so the API's own rules (not a copy of them) decide. Nothing is stored.
 */
export async function validatePolicy(
  client: ApiClient,
  existing: string | undefined,
  draft: PolicyDraft,
  signal?: AbortSignal,
): Promise<Validation> {
  if (!draft.ok) return { valid: false, message: draft.error, causes: [] };
  try {
    const body = draft.object as never;
    const options = { query: { dryRun: 'All' as const }, body, ...(signal ? { signal } : {}) };
    if (existing)
      await client.call('mediationPolicies.replace', { ...options, params: { name: existing } });
    else await client.call('mediationPolicies.create', options);
    return { valid: true };
  } catch (error) {
    if (error instanceof ApiError && error.httpStatus >= 400 && error.httpStatus < 500) {
      return {
        valid: false,
        message: error.status.message,
        causes: error.status.details?.causes ?? [],
      };
    }
    throw error;
  }
}

export function validatePolicyQueryOptions(
  client: ApiClient,
  existing: string | undefined,
  draft: PolicyDraft,
) {
  return queryOptions({
    queryKey: policyKeys.validation(existing, draft.text),
    queryFn: ({ signal }) => validatePolicy(client, existing, draft, signal),
    placeholderData: keepPreviousData,
    staleTime: 30_000,
    retry: false,
  });
}

/** Live validation of the (debounced) draft. */
export function useValidatePolicy(
  existing: string | undefined,
  draft: PolicyDraft,
  enabled: boolean,
) {
  return useQuery({ ...validatePolicyQueryOptions(useApiClient(), existing, draft), enabled });
}
