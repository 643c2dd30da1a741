import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { parseConsoleEnv } from './server/env.ts';
import { proxyTo } from './server/proxy.ts';

const env = parseConsoleEnv(process.env);

/**
 * The console is served from its own origin; `/apis`, `/healthz`, `/readyz` and `/docs` are
 * proxied to the API (dev server here, production build through `server/console-server.ts`), so
 * the browser never needs CORS. `pnpm dev` reads the same Env as `start` (CONSOLE_HOST,
 * CONSOLE_PORT, API_URL).
 */
export default defineConfig({
  plugins: [react()],
  server: {
    host: env.CONSOLE_HOST,
    port: env.CONSOLE_PORT,
    proxy: proxyTo(env.API_URL),
  },
  build: {
    target: 'es2022',
    sourcemap: true,
    // The initial bundle is what `pnpm bench` measures; heavy pages are split off with lazy().
    chunkSizeWarningLimit: 600,
  },
});
