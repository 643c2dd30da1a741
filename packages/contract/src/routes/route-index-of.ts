import type { RouteDef, RouteShape } from '../route.ts';

/** What `route-index.ts` holds: each route's method, path and access, in the table's order. */
export function routeIndexOf(
  routes: Readonly<Record<string, RouteDef>>,
): Record<string, RouteShape> {
  return Object.fromEntries(
    Object.entries(routes).map(([name, def]) => [
      name,
      { method: def.method, path: def.path, access: def.access },
    ]),
  );
}

/** The source text of `route-index.ts` for `routes` (then formatted by Biome). */
export function renderRouteIndex(routes: Readonly<Record<string, RouteDef>>): string {
  const entries = Object.entries(routeIndexOf(routes)).map(
    ([name, shape]) => `  ${JSON.stringify(name)}: ${JSON.stringify(shape)},`,
  );
  return `// Generated from ROUTES by \`pnpm contract:route-index\`: do not edit.
// route-index.test.ts fails when it no longer matches ROUTES.
import type { RouteShape } from '../route.ts';
import type { RouteName } from './index.ts';

/**
 * Every route's method, path and access, without its schemas: what a client needs to call it
 * and the console to hide what a role may not do. The console imports this instead of ROUTES,
 * so the browser never loads the API's validation code (zod refinements, the CEL compiler).
 */
export const ROUTE_INDEX: Readonly<Record<RouteName, RouteShape>> = {
${entries.join('\n')}
};
`;
}
