import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ReceiptValueField } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';
import { receiptKeys } from './keys.ts';
import type { ReceiptFilters } from './list-receipts.ts';

/** How many receipts the filters match (exact up to the API's cap, then "1,000+"). */
export function useReceiptCount(filters: Omit<ReceiptFilters, 'order'>, enabled = true) {
  const client = useApiClient();
  return useQuery({
    enabled,
    queryKey: receiptKeys.count(filters),
    queryFn: ({ signal }) =>
      client.call('receipts.count', { query: filters, signal }) as Promise<{
        count: number;
        capped: boolean;
      }>,
    staleTime: 30_000,
  });
}

/** Suggestions for one filter field, narrowed by what was typed so far. */
export function useReceiptValues(field: ReceiptValueField, contains: string) {
  const client = useApiClient();
  return useQuery({
    queryKey: receiptKeys.values(field, contains),
    queryFn: ({ signal }) =>
      client.call('receipts.values', {
        params: { field },
        ...(contains ? { query: { contains } } : {}),
        signal,
      }) as Promise<{ items: string[]; truncated: boolean }>,
    staleTime: 60_000,
    placeholderData: keepPreviousData,
  });
}

/** "1,234", or "1,000+" when counting stopped at the cap. */
export function countLabel(count: { count: number; capped: boolean }): string {
  return `${count.count.toLocaleString('en-US')}${count.capped ? '+' : ''}`;
}
