import { type ClientOptions, createRouteClient } from './route-client.ts';
import { ROUTES } from './routes/index.ts';

export * from './route-client.ts';

/** The typed client of the Toolgate API, shared by the gateway, the console and the CLI. */
export function createClient(options: ClientOptions) {
  return createRouteClient(ROUTES, options);
}
