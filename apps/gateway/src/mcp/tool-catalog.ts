import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  canonicalize,
  deepFreeze,
  illFormedPath,
  type JsonObject,
  MCP_LIMITS,
  mcpToolDefinition,
  mcpToolDefinitionHash,
  NUL_PROBLEM,
  nulPath,
  rememberJsonText,
} from '@toolgate/core';
import type { ObservedTool } from './drift-pins.ts';
import { UpstreamFailure, upstreamFailure } from './upstream-client.ts';

/** Pages of one `tools/list` fetched at most (a server paging one tool at a time still fits). */
const MAX_PAGES = MCP_LIMITS.tools;

/** A complete upstream tool list: the tools, and the frozen list the engine mediates. */
export interface ToolCatalog {
  tools: ReadonlyArray<ObservedTool>;
  /** The tools as listed, deep-frozen, their JSON text remembered: the engine's memo key. */
  list: ReadonlyArray<JsonObject>;
  /** Sorted `name hash` lines: equal for equal lists, whatever the order (what is reported). */
  fingerprint: string;
}

/**
 * Fetches every page of the upstream's `tools/list` and checks what the gateway must be able to
 * pin and record: at most MCP_LIMITS.tools tools, no cursor loop, valid MCP names (unique), each
 * definition well-formed Unicode and at most MCP_LIMITS.definitionBytes canonical bytes. A list
 * failing any check is refused whole (fail closed): an upstream error, naming the tool.
 */
export async function fetchToolCatalog(
  client: Client,
  server: string,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<ToolCatalog> {
  const listed: JsonObject[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= MAX_PAGES) throw listFailure(server, `more than ${MAX_PAGES} pages`);
    let result: { tools: unknown[]; nextCursor?: string | undefined };
    try {
      result = await client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        ListToolsResultSchema,
        { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) },
      );
    } catch (error) {
      throw upstreamFailure(error, server);
    }
    if (listed.length + result.tools.length > MCP_LIMITS.tools) {
      throw listFailure(server, `more than ${MCP_LIMITS.tools} tools`);
    }
    listed.push(...(result.tools as JsonObject[]));
    cursor = result.nextCursor;
    if (cursor === undefined) break;
    if (cursors.has(cursor)) throw listFailure(server, 'a cursor twice (a paging loop)');
    cursors.add(cursor);
  }
  const tools = listed.map((tool, index) => observe(server, tool, index));
  const names = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    if (names.has(tool.name)) throw listFailure(server, `tools[${index}].name: is listed twice`);
    names.add(tool.name);
  }
  const frozen = deepFreeze(tools.map((t) => t.tool));
  rememberJsonText(frozen);
  return {
    tools: tools.map((t, i) => ({ ...t, tool: frozen[i] as JsonObject })),
    list: frozen,
    fingerprint: tools
      .map((t) => `${t.name} ${t.hash}`)
      .sort()
      .join('\n'),
  };
}

function observe(server: string, tool: JsonObject, index: number): ObservedTool {
  const bad = illFormedPath(tool);
  if (bad !== undefined) {
    throw listFailure(server, `tools[${index}].${bad}: holds a lone UTF-16 surrogate`);
  }
  // The API's store of observed definitions (PostgreSQL) could not hold it.
  const nul = nulPath(tool);
  if (nul !== undefined) throw listFailure(server, `tools[${index}].${nul}: ${NUL_PROBLEM}`);
  let definition: JsonObject;
  try {
    definition = mcpToolDefinition(tool);
  } catch {
    throw listFailure(server, `tools[${index}].name: is not a valid MCP tool name`);
  }
  const bytes = Buffer.byteLength(canonicalize(definition));
  if (bytes > MCP_LIMITS.definitionBytes) {
    throw listFailure(
      server,
      `tools[${index}]: a definition of ${bytes} bytes (at most ${MCP_LIMITS.definitionBytes})`,
    );
  }
  return {
    name: definition.name as string,
    tool,
    definition,
    hash: mcpToolDefinitionHash(definition),
  };
}

function listFailure(server: string, what: string): UpstreamFailure {
  return new UpstreamFailure(`MCP server ${server} listed an unusable tool list: ${what}`);
}
