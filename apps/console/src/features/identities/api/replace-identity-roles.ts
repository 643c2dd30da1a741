import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import type { Identity, Role } from '@toolgate/core';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { identityKeys } from './keys.ts';

/**
 * Replaces the identity's roles, sending the resourceVersion it was loaded with: a change made
 * meanwhile by someone else answers 409 instead of being overwritten.
 */
export function replaceIdentityRoles(client: ApiClient, identity: Identity, roles: Role[]) {
  const { metadata, spec } = identity;
  return client.call('identities.replace', {
    params: { name: metadata.name },
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'Identity',
      metadata: {
        name: metadata.name,
        labels: metadata.labels,
        annotations: metadata.annotations,
        resourceVersion: metadata.resourceVersion,
      },
      spec: { ...spec, roles },
    },
  });
}

export function useReplaceIdentityRoles() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { identity: Identity; roles: Role[] }) =>
      replaceIdentityRoles(client, input.identity, input.roles),
    onSettled: () => queryClient.invalidateQueries({ queryKey: identityKeys.lists() }),
  });
}
