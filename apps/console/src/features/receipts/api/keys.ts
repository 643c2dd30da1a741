import type { ReceiptFilters } from './list-receipts.ts';

/** Query keys of the receipts feature (receipts, their chains and the schema store). */
export const receiptKeys = {
  all: ['receipts'] as const,
  lists: () => [...receiptKeys.all, 'list'] as const,
  list: (filters: ReceiptFilters) => [...receiptKeys.lists(), filters] as const,
  count: (filters: Omit<ReceiptFilters, 'order'>) =>
    [...receiptKeys.all, 'count', filters] as const,
  values: (field: string, contains: string) =>
    [...receiptKeys.all, 'values', field, contains] as const,
  detail: (id: string) => [...receiptKeys.all, 'detail', id] as const,
  toolLinks: (id: string) => [...receiptKeys.all, 'tool-links', id] as const,
  chain: (gateway: string) => [...receiptKeys.all, 'chain', gateway] as const,
  schema: (hash: string) => ['schemas', hash] as const,
};
