import { ValidationError } from '../../errors.ts';
import { isJsonObject, type JsonObject } from '../../json/json-value.ts';
import { ResourceName } from '../../resources/envelope.ts';
import { MCP_LIMITS, McpToolName } from '../../resources/mcp-server.ts';
import type { FunctionParts, RequestTool, SurfaceAdapter } from '../request-tool.ts';
import { nonEmptyString, RequestProblems } from './request-fields.ts';

const KIND = 'McpToolList';

/**
 * An MCP server's `tools/list` as the engine mediates it: the gateway's MCP proxy wraps the
 * complete list (every page) in this "request" and serves the mediated `tools` to the agent.
 * `model` is `mcp/<server>` (what `match.model` selects and the receipt records).
 */
export interface McpToolListRequest extends JsonObject {
  model: string;
  server: string;
  tools: JsonObject[];
}

/**
 * The list is kept as given (not copied): a frozen list whose JSON text is remembered
 * (`rememberJsonText`) is then looked up in the catalog memo without serializing it again.
 */
export function mcpToolListRequest(
  server: string,
  tools: ReadonlyArray<JsonObject>,
): McpToolListRequest {
  return { model: `mcp/${server}`, server, tools: tools as JsonObject[] };
}

/** The name rules match an MCP tool by: `<server>/<tool>`, as LLM requests name MCP tools. */
export function mcpQualifiedName(server: string, tool: string): string {
  return `${server}/${tool}`;
}

/**
 * One adapter per server: the server is part of every tool's name, so it must be part of the
 * catalog memo's key (`shape`), or two servers listing the same tools would share names.
 */
const ADAPTERS = new Map<string, SurfaceAdapter>();
const MAX_ADAPTERS = 1024;

/** The adapter for a `tools/list` of `body.server` (validated: a ResourceName). */
export function mcpToolsAdapterFor(body: JsonObject): SurfaceAdapter {
  const server = body.server;
  const parsed = ResourceName.safeParse(server);
  if (!parsed.success) {
    throw new ValidationError(KIND, [{ field: 'server', message: 'must be an McpServer name' }]);
  }
  let adapter = ADAPTERS.get(parsed.data);
  if (adapter === undefined) {
    if (ADAPTERS.size >= MAX_ADAPTERS) ADAPTERS.clear();
    adapter = mcpToolsAdapter(parsed.data);
    ADAPTERS.set(parsed.data, adapter);
  }
  return adapter;
}

/**
 * MCP tools (`{name, title?, description?, inputSchema, outputSchema?, annotations?}`) as
 * function tools: `declared_by: mcp`, executed by the remote MCP server, matched as
 * `<server>/<tool>` and offered to the agent as `<tool>` unless a rule renames or replaces it.
 * `inputSchema` is what `augment.parameters` tightens. MCP names need no provider-legal aliases:
 * the agent's MCP client, not an LLM provider, reads them.
 */
function mcpToolsAdapter(server: string): SurfaceAdapter {
  return {
    surface: 'mcp',
    shape: `mcp\u0000${server}`,
    listKey: 'tools',
    aliasIllegalNames: false,

    readTools(body) {
      const problems = new RequestProblems(KIND);
      const list = body.tools;
      const tools: RequestTool[] = [];
      if (!Array.isArray(list)) problems.add('tools', 'must be an array');
      else if (list.length > MCP_LIMITS.tools) {
        problems.add('tools', `must hold at most ${MCP_LIMITS.tools} tools`);
      } else {
        list.forEach((raw, index) => {
          if (!isJsonObject(raw)) {
            problems.add(`tools[${index}]`, 'must be an object');
            return;
          }
          const field = `tools[${index}].name`;
          const name = nonEmptyString(raw.name, field, problems, MCP_LIMITS.toolName);
          if (name === undefined) return;
          if (!McpToolName.safeParse(name).success) {
            problems.add(field, "must consist of letters, digits, '_', '-', '.' or '/'");
            return;
          }
          tools.push({
            name: mcpQualifiedName(server, name),
            exposedName: name,
            type: 'function',
            kind: 'function',
            declaredBy: 'mcp',
            executedBy: 'remote_mcp',
            raw,
            origin: 'tools',
            index,
          });
        });
      }
      problems.throwIfAny();
      return tools;
    },

    functionParts(raw) {
      const parts: FunctionParts = { name: String(raw.name) };
      if (typeof raw.description === 'string') parts.description = raw.description;
      if (isJsonObject(raw.inputSchema)) parts.parameters = raw.inputSchema;
      return parts;
    },

    writeFunction(parts, base) {
      const tool: JsonObject = { ...(base ?? {}), name: parts.name };
      if (parts.description !== undefined) tool.description = parts.description;
      else delete tool.description;
      // MCP requires an input schema: a replacement without parameters takes no arguments.
      tool.inputSchema = parts.parameters ?? { type: 'object' };
      return tool;
    },

    readToolChoice() {
      return { kind: 'absent' };
    },

    renameToolChoice() {
      return null;
    },

    writeRequest(body, edit) {
      return { ...body, tools: edit.declarations as JsonObject[] };
    },
  };
}
