import type { RouteName } from '@toolgate/contract';
import type { FastifyInstance } from 'fastify';
import type { AccessControl } from './access-control.ts';

/** Where `@Route` leaves the contract route's name on the Fastify route (`config.routeName`). */
export interface ToolgateRouteConfig {
  routeName?: RouteName;
}

/**
 * Access is decided in Fastify's `onRequest` hook, before a byte of the body is read: a caller
 * without a valid token gets its 401 whatever it sent (a malformed, oversized or empty body never
 * answers first), and cannot make the API buffer or parse megabytes. Requests that match no route
 * go on to their 404. Call before the Nest app initialises, so every route gets the hook.
 */
export function admitBeforeBody(fastify: FastifyInstance, access: AccessControl): void {
  fastify.addHook('onRequest', async (request) => {
    if (request.is404) return;
    const config = request.routeOptions.config as ToolgateRouteConfig;
    await access.admit(config.routeName, request);
  });
}
