import { isJsonObject, type JsonValue } from '../json/json-value.ts';
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

export interface ResolvedMetaCall {
  /** The wrapper's own name. */
  via: string;
  server: string;
  tool: string;
  /** `server/tool`: the name policy rules are checked against. */
  qualifiedName: string;
  arguments: JsonValue;
}

/**
 * Resolves a call to a meta-tool into the real target it carries, so that policy is decided on
 * `server/tool` rather than on the wrapper. Returns undefined for ordinary tools and for
 * wrapper calls whose arguments do not name a target.
 */
export function resolveMetaCall(
  name: string,
  args: JsonValue | undefined,
  metaTools: ReadonlyArray<MetaTool>,
): ResolvedMetaCall | undefined {
  const meta = metaTools.find((m) => m.name === name);
  if (!meta || !isJsonObject(args)) return undefined;
  const server = args[meta.serverField];
  const tool = args[meta.toolField];
  if (typeof server !== 'string' || typeof tool !== 'string' || server === '' || tool === '') {
    return undefined;
  }
  return {
    via: name,
    server,
    tool,
    qualifiedName: `${server}/${tool}`,
    arguments: args[meta.argumentsField] ?? {},
  };
}

export function isMetaTool(name: string, metaTools: ReadonlyArray<MetaTool>): boolean {
  return metaTools.some((m) => m.name === name);
}
