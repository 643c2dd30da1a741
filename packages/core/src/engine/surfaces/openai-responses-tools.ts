import {
  isJsonObject,
  type JsonObject,
  type JsonValue,
  setJsonKey,
} from '../../json/json-value.ts';
import type { ExecutedBy } from '../../resources/vocabulary.ts';
import { scrubSecrets } from '../../secrets.ts';
import { REDACTED } from '../redact.ts';
import type { RequestTool } from '../request-tool.ts';
import { functionTool } from './openai-chat.ts';
import { nonEmptyString, type RequestProblems, readToolArray } from './request-fields.ts';

/**
 * The `tools` of an OpenAI Responses request (`POST /v1/responses`). Function and custom tools
 * are flat (`{type: "function", name, description, parameters, strict}`) and called by name.
 * Every other tool is typed (`{type: "web_search"}`, `{type: "mcp", server_label, …}`) and has no
 * name: the model invokes it through an output item of its own (`web_search_call`,
 * `computer_call`, `mcp_call`, …). Each gets the stable name rules match it by (`web_search`,
 * `computer`, an MCP tool's `server_label`).
 */

/** A typed tool: the name rules match, who runs it, and its capability contract. */
interface NativeTool {
  name: string;
  executedBy: ExecutedBy;
  capability?: string;
}

const WEB_SEARCH: NativeTool = {
  name: 'web_search',
  executedBy: 'provider',
  capability: 'wardwright.web_search.v1',
};
const COMPUTER: NativeTool = {
  name: 'computer',
  executedBy: 'agent',
  capability: 'wardwright.computer_use.v1',
};

/**
 * Typed tools by `type`. Provider-run ones (search, code, images, remote MCP) report what they
 * did in output items; agent-run ones (computer, shells, patches) come back as call items the
 * agent executes, judged like function calls. A type missing here is refused: its calls would
 * come back in items Toolgate cannot judge.
 */
export const NATIVE_TOOLS: Readonly<Record<string, NativeTool>> = {
  web_search: WEB_SEARCH,
  web_search_2025_08_26: WEB_SEARCH,
  web_search_preview: WEB_SEARCH,
  web_search_preview_2025_03_11: WEB_SEARCH,
  file_search: {
    name: 'file_search',
    executedBy: 'provider',
    capability: 'wardwright.file_search.v1',
  },
  code_interpreter: {
    name: 'code_interpreter',
    executedBy: 'provider',
    capability: 'wardwright.code_exec.v1',
  },
  image_generation: { name: 'image_generation', executedBy: 'provider' },
  tool_search: { name: 'tool_search', executedBy: 'provider' },
  programmatic_tool_calling: { name: 'programmatic_tool_calling', executedBy: 'provider' },
  computer_use_preview: COMPUTER,
  computer: COMPUTER,
  local_shell: { name: 'local_shell', executedBy: 'agent' },
  apply_patch: { name: 'apply_patch', executedBy: 'agent' },
};

/** The `shell` tool in a hosted container: code the provider runs. */
const HOSTED_SHELL: NativeTool = {
  name: 'shell',
  executedBy: 'provider',
  capability: 'wardwright.code_exec.v1',
};
const LOCAL_SHELL: NativeTool = { name: 'shell', executedBy: 'agent' };

/**
 * Whether a declaration is a provider-run typed tool (`native_tools`): offered as a whole, never
 * called by name. Agent-run typed tools (computer, shells, patches) are not: they are written
 * back with the function tools.
 */
export function isProviderRun(raw: JsonValue): boolean {
  if (!isJsonObject(raw) || typeof raw.type !== 'string') return false;
  if (raw.type === 'mcp') return true;
  const native = raw.type === 'shell' ? shellTool(raw) : NATIVE_TOOLS[raw.type];
  return native?.executedBy === 'provider';
}

/** The name rules match a typed tool by, for tool_choice references (`{type: "file_search"}`). */
export function nativeToolName(type: string): string | undefined {
  return type === 'shell' ? 'shell' : NATIVE_TOOLS[type]?.name;
}

/** Reads every tool of `body.tools`, recording problems with their field paths. */
export function readResponsesTools(body: JsonObject, problems: RequestProblems): RequestTool[] {
  const tools: RequestTool[] = [];
  for (const [index, raw] of readToolArray(body, problems).entries()) {
    const at = `tools[${index}]`;
    const type = raw.type;
    if (type === 'function' || type === 'custom') {
      const name = nonEmptyString(raw.name, `${at}.name`, problems);
      if (name === undefined) continue;
      const tool = functionTool(name, raw, index);
      // Custom tools take free text, not JSON: called by name, but never rewritten by a rule.
      tools.push(type === 'custom' ? { ...tool, type: 'custom', kind: 'provider' } : tool);
    } else if (type === 'mcp') {
      const label = nonEmptyString(raw.server_label, `${at}.server_label`, problems);
      if (label !== undefined) tools.push(mcpServer(label, raw, index));
    } else if (typeof type !== 'string') {
      problems.add(`${at}.type`, type === undefined ? 'is required' : 'must be a string');
    } else if (type === 'namespace') {
      problems.add(
        `${at}.type`,
        'namespace tools are not supported through Toolgate; declare their functions as function tools',
      );
    } else if (type === 'tool_search' && raw.execution === 'client') {
      problems.add(
        `${at}.execution`,
        'client tool search loads tools in input items, past the tools Toolgate mediates; use server execution',
      );
    } else {
      const native = type === 'shell' ? shellTool(raw) : NATIVE_TOOLS[type];
      if (native === undefined) {
        problems.add(`${at}.type`, `"${bounded(type)}" is not a tool type Toolgate mediates`);
      } else {
        tools.push(nativeTool(native, type, raw, index));
      }
    }
  }
  return tools;
}

function bounded(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}…` : text;
}

/** `shell` runs in the provider's container unless its environment is the agent's machine. */
function shellTool(raw: JsonObject): NativeTool {
  const environment = raw.environment;
  const type = isJsonObject(environment) ? environment.type : undefined;
  return type === 'container_auto' || type === 'container_reference' ? HOSTED_SHELL : LOCAL_SHELL;
}

/**
 * A typed tool. Agent-run ones sit in `tools` callable by their name (their call items are
 * judged like function calls); provider-run ones are `native_tools`: offered, never called by
 * name, reported by the items they produce.
 */
function nativeTool(native: NativeTool, type: string, raw: JsonObject, index: number): RequestTool {
  const agentRun = native.executedBy === 'agent';
  return {
    name: native.name,
    type,
    kind: 'provider',
    declaredBy: agentRun ? 'agent' : 'provider',
    executedBy: native.executedBy,
    ...(native.capability ? { capability: native.capability } : {}),
    raw,
    origin: agentRun ? 'tools' : 'native_tools',
    index,
  };
}

/** A remote MCP server the provider connects to, named by its `server_label`. */
function mcpServer(label: string, raw: JsonObject, index: number): RequestTool {
  return {
    name: label,
    type: 'mcp',
    kind: 'provider',
    declaredBy: 'mcp',
    executedBy: 'remote_mcp',
    capability: 'wardwright.mcp_tool.v1',
    raw: withoutCredentials(raw),
    origin: 'native_tools',
    index,
  };
}

/**
 * An MCP tool as receipts keep it: `authorization` and every `headers` value replaced by
 * `[REDACTED]`, credentials in `server_url`'s query scrubbed. Its schema hash then proves the
 * server's configuration without ever hashing a secret; the provider still gets the original
 * (the adapter writes kept typed tools from the request itself).
 */
export function withoutCredentials(raw: JsonObject): JsonObject {
  let out: JsonObject | undefined;
  const set = (key: string, value: JsonValue) => {
    out ??= { ...raw };
    setJsonKey(out, key, value);
  };
  if (raw.authorization !== undefined && raw.authorization !== null) set('authorization', REDACTED);
  if (isJsonObject(raw.headers)) {
    const headers: JsonObject = {};
    for (const key of Object.keys(raw.headers)) setJsonKey(headers, key, REDACTED);
    set('headers', headers);
  }
  if (typeof raw.server_url === 'string') {
    const scrubbed = scrubSecrets(raw.server_url);
    if (scrubbed !== raw.server_url) set('server_url', scrubbed);
  }
  return out ?? raw;
}
