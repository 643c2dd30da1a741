import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { identityKeys } from './keys.ts';

export function revokeToken(client: ApiClient, name: string, tokenId: string) {
  return client.call('tokens.revokeToken', { params: { name, tokenId } });
}

export function useRevokeToken(name: string) {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (tokenId: string) => revokeToken(client, name, tokenId),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: identityKeys.tokens(name) }),
        queryClient.invalidateQueries({ queryKey: identityKeys.lists() }),
      ]),
  });
}
