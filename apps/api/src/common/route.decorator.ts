import {
  applyDecorators,
  HttpCode,
  RequestMapping,
  RequestMethod,
  SetMetadata,
} from '@nestjs/common';
import { ROUTES, type RouteName } from '@toolgate/contract';

export const ROUTE_NAME = 'toolgate:route';

const METHODS = {
  GET: RequestMethod.GET,
  POST: RequestMethod.POST,
  PUT: RequestMethod.PUT,
  DELETE: RequestMethod.DELETE,
} as const;

/**
 * Binds a handler to a route of the contract: method, path, success code, and the route name
 * the auth guard reads the access rule from. Paths live in the contract only.
 */
export function Route(name: RouteName): MethodDecorator {
  const def = ROUTES[name];
  return applyDecorators(
    RequestMapping({ path: def.path.replace(/\{(\w+)\}/g, ':$1'), method: METHODS[def.method] }),
    HttpCode(def.successCode ?? 200),
    SetMetadata(ROUTE_NAME, name),
  );
}
