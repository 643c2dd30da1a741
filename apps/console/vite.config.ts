import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { proxyTo } from './server/proxy.ts';

/**
 * The console is served from its own origin; `/apis`, `/healthz`, `/readyz` and `/docs` are
 * proxied to the API (dev server here, production build through `server/console-server.ts`), so
 * the browser never needs CORS. `API_URL` picks the API for `pnpm dev`.
 */
export default defineConfig({
  plugins: [react()],
  server: {
    host: '127.0.0.1',
    port: 5173,
    proxy: proxyTo(process.env.API_URL ?? 'http://127.0.0.1:8080'),
  },
  build: {
    target: 'es2022',
    sourcemap: true,
    // The initial bundle is what `pnpm bench` measures; heavy pages are split off with lazy().
    chunkSizeWarningLimit: 600,
  },
});
