import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { identityKeys } from './keys.ts';

/** Issues a token; its secret is in this response only. */
export function issueToken(
  client: ApiClient,
  name: string,
  body: { description?: string; ttlSeconds?: number },
) {
  return client.call('tokens.issueToken', { params: { name }, body });
}

export function useIssueToken(name: string) {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { description?: string; ttlSeconds?: number }) =>
      issueToken(client, name, body),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: identityKeys.tokens(name) }),
        queryClient.invalidateQueries({ queryKey: identityKeys.lists() }),
      ]),
  });
}
