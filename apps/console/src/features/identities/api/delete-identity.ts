import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { identityKeys } from './keys.ts';

/** Deletes an identity; the API revokes all its tokens in the same transaction. */
export function deleteIdentity(client: ApiClient, name: string) {
  return client.call('identities.delete', { params: { name } });
}

export function useDeleteIdentity() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => deleteIdentity(client, name),
    onSuccess: (_result, name) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: identityKeys.lists() }),
        queryClient.removeQueries({ queryKey: identityKeys.tokens(name) }),
      ]),
  });
}
