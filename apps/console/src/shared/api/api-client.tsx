import {
  type ApiClient,
  ApiError,
  createRouteClient,
  ROUTE_INDEX,
  type Status,
} from '@toolgate/contract';
import { createContext, type ReactNode, useContext } from 'react';

const ApiClientContext = createContext<ApiClient | null>(null);

/**
 * The typed client every fetcher uses; the API is on the console's own origin (proxied).
 * `onUnauthorized` hears every 401 of any call made with the token (queries, mutations, exports,
 * raw streams alike): the one place that notices a token the API no longer accepts.
 */
export function makeApiClient(
  token: string | undefined,
  baseUrl = window.location.origin,
  onUnauthorized?: () => void,
) {
  const observed: typeof fetch = async (input, init) => {
    // Looked up per call, not captured, so a fetch installed later (tests) is the one used.
    const response = await globalThis.fetch(input, init);
    if (response.status === 401 && token) onUnauthorized?.();
    return response;
  };
  // The route index, not ROUTES: the browser needs each route's method and path, not the
  // schemas (and the CEL compiler) the API validates with, which would triple the bundle.
  return createRouteClient(ROUTE_INDEX, { baseUrl, ...(token ? { token } : {}), fetch: observed });
}

export function ApiClientProvider(props: { client: ApiClient; children: ReactNode }) {
  return <ApiClientContext value={props.client}>{props.children}</ApiClientContext>;
}

export function useApiClient(): ApiClient {
  const client = useContext(ApiClientContext);
  if (!client) throw new Error('useApiClient outside ApiClientProvider');
  return client;
}

/** The Kubernetes Status of a failed call, or a made-up one for anything else. */
export function statusOfError(error: unknown): Status | undefined {
  return error instanceof ApiError ? error.status : undefined;
}

/** Field errors of a 422 Invalid, keyed by dotted path (`spec.rules[2].match.name`). */
export function fieldErrors(error: unknown): Array<{ field: string; message: string }> {
  const status = statusOfError(error);
  if (status?.reason !== 'Invalid') return [];
  return (status.details?.causes ?? []).map((cause) => ({
    field: cause.field,
    message: cause.message,
  }));
}

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.status.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

export function httpStatusOf(error: unknown): number | undefined {
  return error instanceof ApiError ? error.httpStatus : undefined;
}
