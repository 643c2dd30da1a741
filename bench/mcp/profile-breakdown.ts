import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The parts of one `tools/call` through the gateway the CPU profile is broken down into. */
export const PARTS = [
  'server transport (SDK, hono Request/Response)',
  'server dispatch (SDK Server/Protocol, zod)',
  'upstream client (SDK Client/Protocol, zod)',
  'upstream transport (SDK, fetch/undici)',
  'mediation (engine, catalog, drift)',
  'receipts (build, chain, spool)',
  'gateway HTTP layer (identity, body, routing)',
  'other gateway code (metrics, session, context)',
  'node http/net/streams (unattributed)',
  'garbage collection',
  'other',
] as const;
export type Part = (typeof PARTS)[number];

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  parent?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** What one frame is, when it tells: a part, or a shared SDK file whose side a caller decides. */
type FrameClass = Part | 'sdk-shared' | undefined;

/**
 * Reads a `--cpu-prof` profile of the gateway and adds up the sampled CPU time per part, only
 * for samples taken within [fromUs, toUs] (CLOCK_MONOTONIC µs, the profile's own clock). Each
 * sample goes to the innermost frame that says which part it is (SDK files by their path, the
 * gateway's bundled code by its source map); a frame of the SDK's shared Protocol/types goes to
 * the server or the client side by the nearest caller that is one of them.
 */
export function breakdown(
  profilePath: string,
  window: { fromUs: number; toUs: number },
): { parts: Map<Part, number>; totalUs: number; idleUs: number } {
  const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) {
      const found = byId.get(child);
      if (found) found.parent = node.id;
    }
  }
  const classify = frameClassifier();
  const memo = new Map<number, Part | 'idle'>();
  const partOf = (id: number): Part | 'idle' => {
    const known = memo.get(id);
    if (known) return known;
    let part: Part | 'idle' | undefined;
    let shared = false;
    const leaf = byId.get(id) as ProfileNode;
    if (leaf.callFrame.functionName === '(idle)') part = 'idle';
    else if (leaf.callFrame.functionName === '(garbage collector)') part = 'garbage collection';
    else if (leaf.callFrame.functionName === '(program)') part = 'other';
    for (let node: ProfileNode | undefined = leaf; part === undefined && node; ) {
      const kind = classify(node.callFrame);
      if (kind === 'sdk-shared') shared = true;
      else if (kind !== undefined) {
        // A shared SDK frame belongs to the side its SDK caller is on; gateway code calling it
        // directly (client.request from a handler) makes it the client's.
        if (shared && kind.startsWith('server'))
          part = 'server dispatch (SDK Server/Protocol, zod)';
        else if (shared) part = 'upstream client (SDK Client/Protocol, zod)';
        else part = kind;
      }
      node = node.parent === undefined ? undefined : byId.get(node.parent);
    }
    part ??= shared
      ? 'server dispatch (SDK Server/Protocol, zod)'
      : 'node http/net/streams (unattributed)';
    memo.set(id, part);
    return part;
  };
  const parts = new Map<Part, number>(PARTS.map((p) => [p, 0]));
  let totalUs = 0;
  let idleUs = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < window.fromUs || at > window.toUs) continue;
    // The time since the previous sample is charged to this sample's stack (V8's convention).
    const part = partOf(profile.samples[i] as number);
    if (part === 'idle') {
      idleUs += delta;
      continue;
    }
    parts.set(part, (parts.get(part) ?? 0) + delta);
    totalUs += delta;
  }
  return { parts, totalUs, idleUs };
}

function frameClassifier(): (frame: CallFrame) => FrameClass {
  const maps = new Map<string, SourceMap | undefined>();
  const sourceOf = (frame: CallFrame): string | undefined => {
    if (!frame.url.endsWith('.mjs') || !frame.url.includes('/apps/gateway/')) return undefined;
    let map = maps.get(frame.url);
    if (!maps.has(frame.url)) {
      try {
        const file = fileURLToPath(frame.url);
        map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
      } catch {
        map = undefined;
      }
      maps.set(frame.url, map);
    }
    const entry = map?.findEntry(frame.lineNumber, frame.columnNumber) as
      | { originalSource?: string }
      | undefined;
    return entry?.originalSource;
  };
  return (frame) => {
    const url = frame.url;
    if (url === '') return undefined;
    if (url.includes('@modelcontextprotocol/sdk/')) {
      if (/\/server\/(streamableHttp|webStandardStreamableHttp)\.js/.test(url)) {
        return 'server transport (SDK, hono Request/Response)';
      }
      if (url.includes('/server/')) return 'server dispatch (SDK Server/Protocol, zod)';
      if (url.includes('/client/streamableHttp')) return 'upstream transport (SDK, fetch/undici)';
      if (url.includes('/client/')) return 'upstream client (SDK Client/Protocol, zod)';
      return 'sdk-shared';
    }
    if (url.includes('@hono/node-server') || url.includes('/hono@')) {
      return 'server transport (SDK, hono Request/Response)';
    }
    if (url.includes('/zod') || url.includes('/ajv')) return 'sdk-shared';
    if (url.includes('undici') || url.startsWith('node:internal/deps/undici')) {
      return 'upstream transport (SDK, fetch/undici)';
    }
    if (url.includes('eventsource-parser')) return 'upstream transport (SDK, fetch/undici)';
    const source = sourceOf(frame);
    if (source === undefined) return undefined;
    if (/\/(receipts|spool|receipt)\/|mcp-receipts/.test(source))
      return 'receipts (build, chain, spool)';
    if (/packages\/core\/src\/(canonical|json|hash)/.test(source)) return undefined;
    if (
      /packages\/core\/|list-mediation|call-mediation|tool-catalog|drift-pins|mcp-request/.test(
        source,
      )
    ) {
      return 'mediation (engine, catalog, drift)';
    }
    // The lean hot path is the transports' work done without them: counted as theirs.
    if (/mcp\/lean-agent/.test(source)) return 'server transport (SDK, hono Request/Response)';
    if (/mcp\/(lean-upstream|sse-parser)/.test(source)) {
      return 'upstream transport (SDK, fetch/undici)';
    }
    if (/mcp-proxy\.ts|proxy\/agent-|create-gateway|request-context/.test(source)) {
      return 'gateway HTTP layer (identity, body, routing)';
    }
    return 'other gateway code (metrics, session, context)';
  };
}
