import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '@toolgate/contract';

/** Client errors (4xx) are answers, not glitches: never retried. */
export function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        retry: (count, error) =>
          !(error instanceof ApiError && error.httpStatus >= 400 && error.httpStatus < 500) &&
          count < 2,
        refetchOnWindowFocus: false,
      },
    },
  });
}
