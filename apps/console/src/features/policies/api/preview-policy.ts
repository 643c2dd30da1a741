import { useMutation } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';

export type PreviewSource =
  | { kind: 'request'; request: Record<string, unknown> }
  | { kind: 'receipt'; receiptId: string };

/** Runs a draft spec (not stored) against a sample request or a recorded receipt's tools. */
export function previewPolicy(client: ApiClient, spec: unknown, source: PreviewSource) {
  return client.call('policies.preview', {
    body:
      source.kind === 'request'
        ? { spec, request: source.request }
        : { spec, receiptId: source.receiptId },
  });
}

/** A mutation because the operator triggers it; it changes nothing, so it invalidates nothing. */
export function usePreviewPolicy() {
  const client = useApiClient();
  return useMutation({
    mutationFn: (input: { spec: unknown; source: PreviewSource }) =>
      previewPolicy(client, input.spec, input.source),
  });
}
