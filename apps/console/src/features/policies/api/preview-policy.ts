import { useMutation } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';

export type PreviewSource =
  | { kind: 'request'; request: Record<string, unknown> }
  | { kind: 'receipt'; receiptId: string };

/** Where the draft runs: alone, or on a gateway with every policy it runs (`policyName`: the draft's own, left out of that set). */
export interface PreviewTarget {
  gateway?: string;
  policyName?: string;
}

/** Runs a draft spec (not stored) against a sample request or a recorded receipt's tools. */
export function previewPolicy(
  client: ApiClient,
  spec: unknown,
  source: PreviewSource,
  target: PreviewTarget = {},
) {
  const on = target.gateway
    ? { gateway: target.gateway, ...(target.policyName ? { policyName: target.policyName } : {}) }
    : {};
  return client.call('policies.preview', {
    body:
      source.kind === 'request'
        ? { spec, request: source.request, ...on }
        : { spec, receiptId: source.receiptId, ...on },
  });
}

/** A mutation because the operator triggers it; it changes nothing, so it invalidates nothing. */
export function usePreviewPolicy() {
  const client = useApiClient();
  return useMutation({
    mutationFn: (input: { spec: unknown; source: PreviewSource; target?: PreviewTarget }) =>
      previewPolicy(client, input.spec, input.source, input.target),
  });
}
