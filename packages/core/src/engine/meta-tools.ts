import { isJsonObject, type JsonObject, type JsonValue } from '../json/json-value.ts';
import type { MetaTool } from '../resources/mediation-policy.ts';

/** Wrappers recognised without configuration: MCP bridges that expose one generic tool. */
export const DEFAULT_META_TOOLS: ReadonlyArray<MetaTool> = [
  { name: 'mcp_tool', serverField: 'server', toolField: 'tool', argumentsField: 'arguments' },
  { name: 'call_mcp_tool', serverField: 'server', toolField: 'tool', argumentsField: 'arguments' },
  {
    name: 'use_mcp_tool',
    serverField: 'server_name',
    toolField: 'tool_name',
    argumentsField: 'arguments',
  },
];

/**
 * Keys bridges commonly read the target from, besides the wrapper's configured fields. A model
 * that writes `tool_name` to a wrapper configured with `tool` may still be obeyed by a lenient
 * bridge, so every one of them is read, and they must agree.
 */
const SERVER_KEYS = ['server', 'server_name', 'serverName'];
const TOOL_KEYS = ['tool', 'tool_name', 'toolName'];

export interface ResolvedMetaCall {
  /** The wrapper's own name. */
  via: string;
  server: string;
  tool: string;
  /** `server/tool`: the name policy rules are checked against. */
  qualifiedName: string;
  arguments: JsonValue;
}

/** A call to a meta-tool whose target cannot be told for certain: it is never released. */
export interface UnresolvedMetaCall {
  via: string;
  /** Why, for the receipt: `missing_target`, `ambiguous_target`. */
  problem: 'missing_target' | 'ambiguous_target';
}

/**
 * Reads the real target of a call to a meta-tool, normalized the one way both the JSON and the
 * streaming response paths (and action ids) use: every target key a bridge might read
 * (`tool`, `tool_name`, …) is read and trimmed, and they must agree; `{tool: "server/tool"}`
 * (or `mcp__server__tool`) without a server is split. Returns undefined for ordinary tools, an
 * {@link UnresolvedMetaCall} when the target is missing or ambiguous (keys that disagree, a
 * non-string target, a server named twice differently, no server at all).
 */
export function readMetaCall(
  name: string,
  args: JsonValue | undefined,
  metaTools: ReadonlyArray<MetaTool>,
): ResolvedMetaCall | UnresolvedMetaCall | undefined {
  const meta = metaTools.find((m) => m.name === name);
  if (!meta) return undefined;
  if (!isJsonObject(args)) return { via: name, problem: 'missing_target' };
  const server = agreedValue(args, [meta.serverField, ...SERVER_KEYS]);
  const tool = agreedValue(args, [meta.toolField, ...TOOL_KEYS]);
  if (server === AMBIGUOUS || tool === AMBIGUOUS) return { via: name, problem: 'ambiguous_target' };
  if (tool === undefined) return { via: name, problem: 'missing_target' };
  const target = splitTarget(server, tool);
  if (target === AMBIGUOUS) return { via: name, problem: 'ambiguous_target' };
  if (target === undefined) return { via: name, problem: 'missing_target' };
  return {
    via: name,
    server: target.server,
    tool: target.tool,
    qualifiedName: `${target.server}/${target.tool}`,
    arguments: args[meta.argumentsField] ?? {},
  };
}

/**
 * The resolved target of a meta-tool call, or undefined for ordinary tools and for wrapper
 * calls whose target cannot be told (see {@link readMetaCall}).
 */
export function resolveMetaCall(
  name: string,
  args: JsonValue | undefined,
  metaTools: ReadonlyArray<MetaTool>,
): ResolvedMetaCall | undefined {
  const call = readMetaCall(name, args, metaTools);
  return call !== undefined && 'qualifiedName' in call ? call : undefined;
}

export function isMetaTool(name: string, metaTools: ReadonlyArray<MetaTool>): boolean {
  return metaTools.some((m) => m.name === name);
}

const AMBIGUOUS = Symbol('ambiguous');

/** The one trimmed, non-empty string the present keys hold; AMBIGUOUS when they differ. */
function agreedValue(
  args: JsonObject,
  keys: ReadonlyArray<string>,
): string | typeof AMBIGUOUS | undefined {
  let agreed: string | undefined;
  for (const key of new Set(keys)) {
    const value = args[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') return AMBIGUOUS;
    const trimmed = value.trim();
    if (trimmed === '') continue;
    if (agreed !== undefined && agreed !== trimmed) return AMBIGUOUS;
    agreed = trimmed;
  }
  return agreed;
}

/**
 * `server` and `tool` as the bridge would route them: a tool written `server/tool` or
 * `mcp__server__tool` names its server; with a server field too, both must name the same one.
 */
function splitTarget(
  server: string | undefined,
  tool: string,
): { server: string; tool: string } | typeof AMBIGUOUS | undefined {
  const qualified = splitQualifiedName(tool);
  if (!qualified) return server === undefined ? undefined : { server, tool };
  const named = qualified.server.trim();
  const bare = qualified.tool.trim();
  if (named === '' || bare === '') return AMBIGUOUS;
  if (server !== undefined && server !== named) return AMBIGUOUS;
  return { server: named, tool: bare };
}

/** MCP tools reach agents as `server/tool` or `mcp__server__tool`: the two parts, if so. */
export function splitQualifiedName(name: string): { server: string; tool: string } | undefined {
  const match = /^mcp__(.+?)__(.+)$/s.exec(name) ?? /^([^/]+)\/(.+)$/s.exec(name);
  if (!match) return undefined;
  return { server: match[1] as string, tool: match[2] as string };
}
