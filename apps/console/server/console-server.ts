import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONSOLE_CONTENT_SECURITY_POLICY, securityHeaders } from '@toolgate/contract';
import { build, type Plugin, preview } from 'vite';
import { proxyTo } from './proxy.ts';

/** apps/console */
export const CONSOLE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(CONSOLE_ROOT, 'dist');
/** What the build is made of: a change in any of these makes `dist/` stale. */
const SOURCES = [
  join(CONSOLE_ROOT, 'src'),
  join(CONSOLE_ROOT, 'index.html'),
  join(CONSOLE_ROOT, 'vite.config.ts'),
  join(CONSOLE_ROOT, 'package.json'),
  join(CONSOLE_ROOT, '../../packages/contract/src'),
  join(CONSOLE_ROOT, '../../packages/core/src'),
  // Their `sideEffects` flags decide what the bundler may leave out.
  join(CONSOLE_ROOT, '../../packages/contract/package.json'),
  join(CONSOLE_ROOT, '../../packages/core/package.json'),
];

export interface ConsoleServer {
  /** e.g. `http://127.0.0.1:5173` */
  url: string;
  close(): Promise<void>;
}

/** Newest modification time under `path` (a file or a directory tree); 0 when missing. */
async function newestMtime(path: string): Promise<number> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  const entries = await readdir(path, { withFileTypes: true });
  const times = await Promise.all(
    entries
      .filter((entry) => entry.name !== 'node_modules' && !/\.test\.tsx?$/.test(entry.name))
      .map((entry) => newestMtime(join(path, entry.name))),
  );
  return Math.max(info.mtimeMs, ...times);
}

/** True when `dist/` is missing or older than any source of the build. */
export async function isBuildStale(): Promise<boolean> {
  const built = await stat(join(DIST, 'index.html')).catch(() => undefined);
  if (!built) return true;
  const sources = await Promise.all(SOURCES.map(newestMtime));
  return Math.max(...sources) > built.mtimeMs;
}

/**
 * Builds the production bundle into `dist/` unless it is up to date (or `force`); true when it
 * built. Always React's production build: a caller running under vitest has NODE_ENV=test, with
 * which Vite and the React plugin would bundle React's development build (twice the size).
 */
export async function ensureBuilt(
  options: {
    log?: (line: string) => void;
    force?: boolean;
    /** Told the JavaScript chunks the build wrote, and how they import each other (the bench). */
    onChunks?: (chunks: BuiltChunk[]) => void;
  } = {},
): Promise<boolean> {
  if (!options.force && !(await isBuildStale())) return false;
  options.log?.('building the console (dist/ is missing or older than its sources)…');
  const callers = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      root: CONSOLE_ROOT,
      logLevel: 'warn',
      mode: 'production',
      ...(options.onChunks ? { plugins: [reportChunks(options.onChunks)] } : {}),
    });
  } finally {
    if (callers === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = callers;
  }
  return true;
}

/** A JavaScript chunk of the build, as the bundler wrote it. */
export interface BuiltChunk {
  /** Under `dist/`: `assets/index-….js`. */
  fileName: string;
  isEntry: boolean;
  /** The module a lazy import loads it for (`…/overview-page.tsx`), when it is one's chunk. */
  module: string | undefined;
  /** Chunks it imports statically (loaded with it) and dynamically (loaded when it asks). */
  imports: string[];
  dynamicImports: string[];
}

/** Observes the bundle only: the build's output is the same with it. */
function reportChunks(onChunks: (chunks: BuiltChunk[]) => void): Plugin {
  return {
    name: 'toolgate-report-chunks',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks: BuiltChunk[] = [];
      for (const output of Object.values(bundle)) {
        if (output.type !== 'chunk') continue;
        chunks.push({
          fileName: output.fileName,
          isEntry: output.isEntry,
          module: output.facadeModuleId ?? undefined,
          imports: output.imports,
          dynamicImports: output.dynamicImports,
        });
      }
      onChunks(chunks);
    },
  };
}

/**
 * Serves the production build of the console (building it first when stale) and proxies the API
 * paths to `apiUrl`, so the browser talks to one origin. `port: 0` picks a free port.
 */
export async function startConsoleServer(options: {
  apiUrl: string;
  port?: number;
  host?: string;
  log?: (line: string) => void;
}): Promise<ConsoleServer> {
  await ensureBuilt(options.log ? { log: options.log } : {});
  const host = options.host ?? '127.0.0.1';
  const server = await preview({
    root: CONSOLE_ROOT,
    logLevel: 'warn',
    // The production server reads no vite.config.ts: everything it needs is given here.
    configFile: false,
    preview: {
      host,
      port: options.port ?? 0,
      strictPort: true,
      open: false,
      proxy: proxyTo(options.apiUrl),
      // The same security headers as the API's (one list in packages/contract); proxied API
      // answers carry the API's own.
      headers: securityHeaders({ contentSecurityPolicy: CONSOLE_CONTENT_SECURITY_POLICY }),
    },
  });
  const address = server.httpServer.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () => server.close(),
  };
}
