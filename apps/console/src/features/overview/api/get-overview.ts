import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@toolgate/contract';
import { useApiClient } from '../../../shared/api/api-client.tsx';

/** What the overview asks for: a range and, optionally, a bucket size in seconds. */
export interface OverviewRequest {
  from: string;
  to: string;
  bucket?: number;
}

export const overviewKeys = {
  all: ['overview'] as const,
  range: (request: OverviewRequest) => [...overviewKeys.all, request] as const,
};

export function overviewQueryOptions(client: ApiClient, request: OverviewRequest) {
  return queryOptions({
    queryKey: overviewKeys.range(request),
    queryFn: ({ signal }) =>
      client.call('overview.get', {
        query: {
          from: request.from,
          to: request.to,
          ...(request.bucket !== undefined ? { bucket: request.bucket } : {}),
        },
        signal,
      }),
    // A new range keeps the old charts on screen until its answer arrives (no flash of empty).
    placeholderData: keepPreviousData,
    staleTime: 15_000,
  });
}

export function useOverview(request: OverviewRequest | undefined) {
  const client = useApiClient();
  return useQuery({
    ...overviewQueryOptions(client, request ?? { from: '', to: '' }),
    enabled: request !== undefined,
  });
}
