import type { ProxyOptions } from 'vite';

/** Paths the console forwards to the API, same-origin for the browser. */
export const API_PATHS = ['/apis', '/healthz', '/readyz', '/docs'] as const;

/** Vite `server.proxy` / `preview.proxy` entries forwarding the API paths to `apiUrl`. */
export function proxyTo(apiUrl: string): Record<string, ProxyOptions> {
  return Object.fromEntries(
    API_PATHS.map((path) => [path, { target: apiUrl, changeOrigin: true, ws: false }]),
  );
}
