import { rm } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const GATEWAY = fileURLToPath(new URL('..', import.meta.url));
/** Where `pnpm --filter @toolgate/gateway build` writes the gateway; `serve` runs it. */
export const DIST_MAIN = join(GATEWAY, 'dist', 'main.mjs');

/**
 * The gateway as it runs in production: one ES module with its workspace packages
 * (`@toolgate/core`, `@toolgate/contract`) bundled in and transpiled once, and its npm
 * dependencies left as imports (resolved from `apps/gateway/node_modules`, so `outfile` must be
 * inside `apps/gateway`). It needs no TypeScript loader at run time: nothing is transpiled at
 * start, and the request path is free of the loader's `__name` calls (tsx keeps every function's
 * name by wrapping each function created, on every request for closures), which measured
 * ~0.06 ms per request at concurrency 1 (bench/gateway/README.md). Returns the file written.
 */
export async function buildGateway(outfile: string = DIST_MAIN): Promise<string> {
  await rm(dirname(outfile), { recursive: true, force: true });
  await build({
    entryPoints: [join(GATEWAY, 'src', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [
      {
        name: 'npm-dependencies-external',
        setup(context) {
          // Bare specifiers that are not workspace packages: installed dependencies.
          context.onResolve({ filter: /^[^./#]/ }, (args) =>
            args.path.startsWith('@toolgate/') || args.path.startsWith('node:')
              ? undefined
              : { path: args.path, external: true },
          );
        },
      },
    ],
  });
  return outfile;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = performance.now();
  // An output file may be given, e.g. a baseline for bench/gateway/compare-builds.ts: in a
  // directory of its own right under apps/gateway (so it resolves the gateway's dependencies),
  // which the build empties first.
  const outfile = process.argv[2] ? resolve(process.argv[2]) : DIST_MAIN;
  const dir = dirname(outfile);
  if (
    dirname(dir) !== resolve(GATEWAY) ||
    ['src', 'scripts', 'node_modules'].includes(basename(dir))
  ) {
    process.stderr.write(
      `the output file goes in a directory of its own right under apps/gateway, which is emptied first (e.g. apps/gateway/.baseline/main.mjs), not ${outfile}\n`,
    );
    process.exit(2);
  }
  const written = await buildGateway(outfile);
  process.stdout.write(
    `gateway built: ${relative(process.cwd(), written)} in ${Math.round(performance.now() - started)} ms` +
      ' (run it with `pnpm --filter @toolgate/gateway serve`)\n',
  );
}
