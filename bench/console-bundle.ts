import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { BuiltChunk } from '@toolgate/console/server';

/**
 * The landing page's JavaScript, from the build's chunk graph, in the order a browser loads it:
 *
 * - `initial`: the entry and everything it imports statically (the `modulepreload`s of
 *   index.html): before anything renders;
 * - `route`: the landing route's lazy chunk (the Overview) and what it imports that the initial
 *   set does not hold: before the page's own content renders;
 * - `afterRender`: what the route's chunks import lazily once they render (uPlot, with the
 *   first chart), and its static imports not already loaded.
 */
export interface LandingJavaScript {
  initial: string[];
  route: string[];
  afterRender: string[];
}

export function landingJavaScript(
  chunks: ReadonlyArray<BuiltChunk>,
  routeModule: RegExp,
): LandingJavaScript {
  const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  const withStaticImports = (start: Iterable<string>, loaded: ReadonlySet<string>): string[] => {
    const found: string[] = [];
    const seen = new Set(loaded);
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      found.push(file);
      for (const next of byFile.get(file)?.imports ?? []) visit(next);
    };
    for (const file of start) visit(file);
    return found;
  };
  const entries = chunks.filter((chunk) => chunk.isEntry).map((chunk) => chunk.fileName);
  if (entries.length !== 1) throw new Error(`expected one entry chunk, found ${entries.length}`);
  const initial = withStaticImports(entries, new Set());
  const routeChunks = chunks.filter((chunk) => chunk.module && routeModule.test(chunk.module));
  if (routeChunks.length !== 1) {
    throw new Error(`expected one chunk for ${routeModule}, found ${routeChunks.length}`);
  }
  const route = withStaticImports(
    routeChunks.map((chunk) => chunk.fileName),
    new Set(initial),
  );
  const lazy = route.flatMap((file) => byFile.get(file)?.dynamicImports ?? []);
  const afterRender = withStaticImports(lazy, new Set([...initial, ...route]));
  return { initial, route, afterRender };
}

export interface SizedFile {
  name: string;
  rawBytes: number;
  gzipBytes: number;
}

/** Each file's size as served from `dist/`, and gzip-compressed (level 9). */
export async function sizesOf(dist: string, files: ReadonlyArray<string>): Promise<SizedFile[]> {
  return Promise.all(
    files.map(async (file) => {
      const content = await readFile(join(dist, file));
      return {
        name: file.replace(/^assets\//, ''),
        rawBytes: content.length,
        gzipBytes: gzipSync(content, { level: 9 }).length,
      };
    }),
  );
}

export const gzipTotal = (files: ReadonlyArray<SizedFile>) =>
  files.reduce((sum, file) => sum + file.gzipBytes, 0);
