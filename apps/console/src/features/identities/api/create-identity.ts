import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import type { IdentitySpec } from '@toolgate/core';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { identityKeys } from './keys.ts';

export function createIdentity(client: ApiClient, name: string, spec: IdentitySpec) {
  return client.call('identities.create', {
    body: { apiVersion: 'toolgate.dev/v1', kind: 'Identity', metadata: { name }, spec },
  });
}

export function useCreateIdentity() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { name: string; spec: IdentitySpec }) =>
      createIdentity(client, input.name, input.spec),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: identityKeys.lists() }),
  });
}
