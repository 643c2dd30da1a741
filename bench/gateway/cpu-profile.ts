import { readdir, readFile } from 'node:fs/promises';
import { SourceMap } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './processes.ts';

/**
 * Reads a V8 CPU profile (`node --cpu-prof`) of the gateway and sums the self time of its samples
 * inside given windows (the bench's Toolgate blocks), per function and per category, divided by
 * the requests served in those windows: µs of CPU per request. Functions of the production
 * build are named by their original source through the build's source map.
 */

interface ProfileNode {
  id: number;
  callFrame: {
    functionName: string;
    url: string;
    lineNumber: number;
    columnNumber: number;
  };
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileRow {
  name: string;
  usPerRequest: number;
}

export interface ProfileSummary {
  requests: number;
  /** CPU (non-idle samples) per request, µs. */
  totalUs: number;
  categories: ProfileRow[];
  functions: ProfileRow[];
}

/** The newest `.cpuprofile` in `dir`. */
export async function newestProfile(dir: string): Promise<string> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile')).sort();
  const last = files.at(-1);
  if (!last) throw new Error(`no .cpuprofile in ${dir}`);
  return join(dir, last);
}

export async function summarizeProfile(
  file: string,
  windows: ReadonlyArray<{ startUs: number; endUs: number; requests: number }>,
  top = 25,
): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;
  const maps = new Map<string, SourceMap | null>();
  const where = async (frame: ProfileNode['callFrame']) => {
    if (!frame.url.startsWith('file://') || !frame.url.endsWith('.mjs')) return undefined;
    let map = maps.get(frame.url);
    if (map === undefined) {
      try {
        const payload = JSON.parse(await readFile(`${fileURLToPath(frame.url)}.map`, 'utf8'));
        map = new SourceMap(payload);
      } catch {
        map = null;
      }
      maps.set(frame.url, map);
    }
    if (!map) return undefined;
    const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as {
      originalSource?: string;
      originalLine?: number;
    };
    if (!entry.originalSource) return undefined;
    const source = entry.originalSource.startsWith('file://')
      ? fileURLToPath(entry.originalSource)
      : join(fileURLToPath(new URL('.', frame.url)), entry.originalSource);
    return { file: relative(REPO_ROOT, source), line: (entry.originalLine ?? 0) + 1 };
  };

  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    const weight = profile.timeDeltas[i + 1] ?? 0;
    if (!windows.some((w) => at >= w.startUs && at < w.endUs)) continue;
    const id = profile.samples[i] as number;
    selfUs.set(id, (selfUs.get(id) ?? 0) + weight);
  }
  const requests = windows.reduce((sum, w) => sum + w.requests, 0);
  const byFunction = new Map<string, number>();
  const byCategory = new Map<string, number>();
  let total = 0;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const [id, us] of selfUs) {
    const frame = (nodes.get(id) as ProfileNode).callFrame;
    if (frame.functionName === '(idle)') continue;
    total += us;
    const source = await where(frame);
    const name = `${frame.functionName || '(anonymous)'} ${
      source ? `${source.file}:${source.line}` : shortUrl(frame.url, frame.lineNumber)
    }`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const category = categoryOf(frame, source?.file);
    byCategory.set(category, (byCategory.get(category) ?? 0) + us);
  }
  const rows = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, usPerRequest: us / Math.max(1, requests) }));
  return {
    requests,
    totalUs: total / Math.max(1, requests),
    categories: rows(byCategory, 30),
    functions: rows(byFunction, top),
  };
}

function shortUrl(url: string, line: number): string {
  if (!url) return '';
  const path = url.startsWith('file://') ? relative(REPO_ROOT, fileURLToPath(url)) : url;
  return `${path.replace(/^.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '')}:${line + 1}`;
}

/** A coarse home for a sample: V8's own, Node's internals, a dependency, or a Toolgate module. */
function categoryOf(frame: ProfileNode['callFrame'], source: string | undefined): string {
  const { functionName, url } = frame;
  if (functionName === '(garbage collector)') return 'V8: garbage collector';
  if (functionName === '(program)') return 'V8/native: (program)';
  if (source) {
    const dependency = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(
      source,
    );
    if (dependency) return `npm: ${dependency[1]}`;
    return `toolgate: ${source.replace(/^(apps\/[^/]+\/src|packages\/[^/]+\/src)\/([^/]+).*$/, '$1/$2')}`;
  }
  if (url.startsWith('node:')) {
    const module = url.replace(/^node:(internal\/)?/, '').split('/')[0] ?? url;
    return `node: ${module}`;
  }
  const dependency = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(
    url,
  );
  if (dependency) return `npm: ${dependency[1]}`;
  if (url === '') return `native: ${functionName || '(anonymous)'}`;
  return `other: ${shortUrl(url, 0)}`;
}

/** The summary as report lines. */
export function profileLines(summary: ProfileSummary, file: string): string[] {
  const us = (value: number) => `${value.toFixed(1)} µs`.padStart(10);
  return [
    '',
    `CPU profile of the static floor's Toolgate during its blocks (${relative(REPO_ROOT, file)}): ${summary.requests} requests, ${summary.totalUs.toFixed(0)} µs of CPU per request (idle excluded)`,
    '  by category (self time per request):',
    ...summary.categories.map((row) => `  ${us(row.usPerRequest)}  ${row.name}`),
    '  top functions (self time per request):',
    ...summary.functions.map((row) => `  ${us(row.usPerRequest)}  ${row.name}`),
  ];
}
