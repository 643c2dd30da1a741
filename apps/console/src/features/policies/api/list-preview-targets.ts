import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { policyKeys } from './keys.ts';

/** How many recent receipts the preview's picker offers (the search narrows them). */
export const PICKER_RECEIPTS = 20;

/** The gateways a draft can be previewed on: names and labels (what selectors match). */
export async function fetchPreviewGateways(client: ApiClient, signal?: AbortSignal) {
  const list = await client.call('gateways.list', {
    query: { limit: 1000 },
    ...(signal ? { signal } : {}),
  });
  return list.items.map((g) => ({ name: g.metadata.name, labels: g.metadata.labels ?? {} }));
}

export function previewGatewaysQueryOptions(client: ApiClient) {
  return queryOptions({
    queryKey: policyKeys.previewGateways(),
    queryFn: ({ signal }) => fetchPreviewGateways(client, signal),
    staleTime: 60_000,
  });
}

export function usePreviewGateways() {
  return useQuery(previewGatewaysQueryOptions(useApiClient()));
}

/** The newest receipts, optionally those with a tool whose name contains `toolContains`. */
export async function fetchRecentReceipts(
  client: ApiClient,
  toolContains: string,
  signal?: AbortSignal,
) {
  const page = await client.call('receipts.list', {
    query: { limit: PICKER_RECEIPTS, ...(toolContains ? { toolContains } : {}) },
    ...(signal ? { signal } : {}),
  });
  return page.items;
}

export function recentReceiptsQueryOptions(client: ApiClient, toolContains: string) {
  return queryOptions({
    queryKey: policyKeys.previewReceipts(toolContains),
    queryFn: ({ signal }) => fetchRecentReceipts(client, toolContains, signal),
    placeholderData: keepPreviousData,
    staleTime: 15_000,
  });
}

export function useRecentReceipts(toolContains: string, enabled: boolean) {
  return useQuery({ ...recentReceiptsQueryOptions(useApiClient(), toolContains), enabled });
}
