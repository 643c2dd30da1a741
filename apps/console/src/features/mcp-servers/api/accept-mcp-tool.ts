import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import type { McpAcceptInput } from '@toolgate/core';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { mcpServerKeys } from './keys.ts';

export function acceptMcpTool(client: ApiClient, name: string, input: McpAcceptInput) {
  return client.call('mcpServers.accept', { params: { name }, body: input });
}

export function useAcceptMcpTool(name: string) {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: McpAcceptInput) => acceptMcpTool(client, name, input),
    // A 409 (the tool changed again meanwhile) also means what is on screen is stale.
    onSettled: () => queryClient.invalidateQueries({ queryKey: mcpServerKeys.all }),
  });
}
