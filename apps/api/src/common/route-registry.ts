import type { FastifyInstance } from 'fastify';

/** One route as Fastify registered it: `GET /apis/toolgate.dev/v1/gateways/:name`. */
export interface RegisteredRoute {
  method: string;
  url: string;
}

const registries = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/**
 * Records every route Fastify registers from now on, so tests can check that each one has a
 * contract route (and with it an access rule). Call before the Nest app initialises.
 */
export function recordRoutes(instance: FastifyInstance): void {
  const routes: RegisteredRoute[] = [];
  registries.set(instance, routes);
  instance.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
}

/** The routes recorded on `instance` (empty when `recordRoutes` was not called). */
export function registeredRoutes(instance: FastifyInstance): ReadonlyArray<RegisteredRoute> {
  return registries.get(instance) ?? [];
}
