import { applyDecorators, HttpCode, RequestMapping, RequestMethod } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ROUTES, type RouteName } from '@toolgate/contract';
import type { ToolgateRouteConfig } from '../auth/access-hook.ts';

const METHODS = {
  GET: RequestMethod.GET,
  POST: RequestMethod.POST,
  PUT: RequestMethod.PUT,
  DELETE: RequestMethod.DELETE,
} as const;

/**
 * Binds a handler to a route of the contract: method, path, success code, and the route name
 * (on the Fastify route's config) that access control reads the access rule from, before the
 * body is parsed. Paths live in the contract only.
 */
export function Route(name: RouteName): MethodDecorator {
  const def = ROUTES[name];
  return applyDecorators(
    RequestMapping({ path: def.path.replace(/\{(\w+)\}/g, ':$1'), method: METHODS[def.method] }),
    HttpCode(def.successCode ?? 200),
    RouteConfig({ routeName: name } satisfies ToolgateRouteConfig),
  );
}
