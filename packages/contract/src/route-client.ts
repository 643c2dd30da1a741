import type { z } from 'zod';
import { buildPath, type RouteDef, type RouteShape } from './route.ts';
import type { RouteName, Routes } from './routes/index.ts';
import { type Status, statusOf } from './status.ts';

type InputOf<S> = S extends z.ZodType ? z.input<S> : never;
type OutputOf<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a call takes: the route's params, query and body, typed from its schemas. */
export type CallInput<R extends RouteDef> = {
  params?: InputOf<R['params']>;
  query?: InputOf<R['query']>;
  body?: InputOf<R['body']>;
  /**
   * The body already serialized as JSON, instead of `body` — for hot paths that splice stored
   * JSON (the gateway's receipt shipper). It must satisfy the route's body schema all the same.
   */
  rawBody?: string | Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
};
export type CallOutput<R extends RouteDef> = OutputOf<NonNullable<R['response']>>;

/** A failed call: the API's `Status`, or one made up for transport failures. */
export class ApiError extends Error {
  constructor(
    readonly status: Status,
    readonly httpStatus: number,
  ) {
    super(status.message);
    this.name = 'ApiError';
  }
}

export interface ClientOptions {
  /** e.g. `http://127.0.0.1:8080` */
  baseUrl: string;
  /** Bearer token; never logged. */
  token?: string;
  fetch?: typeof fetch;
}

/**
 * The typed client over a table of routes' methods and paths: `createClient` passes `ROUTES`;
 * the console passes `ROUTE_INDEX`, the same routes without their schemas, so the browser never
 * loads the validation code (and the CEL compiler) the API needs.
 */
export function createRouteClient(
  routes: Readonly<Record<RouteName, RouteShape>>,
  options: ClientOptions,
) {
  const doFetch = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');

  async function raw<N extends RouteName>(
    name: N,
    input: CallInput<Routes[N]> = {},
  ): Promise<Response> {
    const def: RouteShape = routes[name];
    const url = new URL(base + buildPath(def.path, input.params as Record<string, unknown>));
    for (const [key, value] of Object.entries((input.query ?? {}) as Record<string, unknown>)) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json', ...input.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (input.rawBody !== undefined) body = input.rawBody;
    else if (input.body !== undefined) body = JSON.stringify(input.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    return doFetch(url, {
      method: def.method,
      headers,
      ...(body !== undefined ? { body } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
    });
  }

  async function call<N extends RouteName>(
    name: N,
    input: CallInput<Routes[N]> = {},
  ): Promise<CallOutput<Routes[N]>> {
    let response: Response;
    try {
      response = await raw(name, input);
    } catch (error) {
      throw new ApiError(
        statusOf('ServiceUnavailable', `API unreachable: ${(error as Error).message}`),
        0,
      );
    }
    const text = await response.text();
    const json = text === '' ? undefined : safeJson(text);
    if (!response.ok) throw new ApiError(toStatus(json, response), response.status);
    return json as CallOutput<Routes[N]>;
  }

  return { call, raw };
}
export type ApiClient = ReturnType<typeof createRouteClient>;

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toStatus(json: unknown, response: Response): Status {
  if (typeof json === 'object' && json !== null && (json as Status).kind === 'Status') {
    return json as Status;
  }
  return {
    ...statusOf('InternalError', `HTTP ${response.status} ${response.statusText}`),
    code: response.status,
  };
}
