import type { Role } from '@toolgate/core';
import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * Who may call a route. Every route has one: the API's guard enforces it, the console reads it
 * to hide controls, and a test fails for any registered route without one.
 * `ownGateway`: a `gateway` identity may only act on the gateway whose `spec.identity` it is.
 */
export type Access = { anonymous: true } | { roles: ReadonlyArray<Role>; ownGateway?: boolean };

/** One HTTP route: its shape as zod schemas, so server, client and OpenAPI share it. */
export interface RouteDef<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  readonly method: HttpMethod;
  /** Path with `{param}` placeholders, e.g. `/apis/toolgate.dev/v1/gateways/{name}/bundle`. */
  readonly path: string;
  readonly summary: string;
  readonly tag: string;
  readonly access: Access;
  readonly params?: P;
  readonly query?: Q;
  readonly body?: B;
  /** Success response body; `null` for routes that stream (watch) or answer 204. */
  readonly response: R | null;
  /** Success status code (default 200). */
  readonly successCode?: number;
}

/** What a client needs of a route to call it, and the console to hide what a role may not do. */
export type RouteShape = Pick<RouteDef, 'method' | 'path' | 'access'>;

/** Fills `{param}` placeholders; values are URI-encoded. */
export function buildPath(path: string, params: Record<string, unknown> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = params[key];
    if (value === undefined) throw new Error(`missing path parameter "${key}" for ${path}`);
    return encodeURIComponent(String(value));
  });
}

export function route<
  P extends z.ZodType,
  Q extends z.ZodType,
  B extends z.ZodType,
  R extends z.ZodType,
>(def: RouteDef<P, Q, B, R>): RouteDef<P, Q, B, R> {
  return def;
}

export const OPERATOR_ONLY: Access = { roles: ['operator'] };
export const READERS: Access = { roles: ['operator', 'auditor'] };
