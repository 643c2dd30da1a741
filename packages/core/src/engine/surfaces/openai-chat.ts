import { isJsonObject, type JsonObject, type JsonValue } from '../../json/json-value.ts';
import type { FunctionParts, RequestTool, SurfaceAdapter } from '../request-tool.ts';
import {
  nonEmptyString,
  RequestProblems,
  readToolArray,
  ToolListMemo,
  withKey,
} from './request-fields.ts';

const KIND = 'ChatCompletionRequest';
const LISTS = new ToolListMemo();

/** OpenAI Chat Completions (`POST /v1/chat/completions`). */
export const openAIChatAdapter: SurfaceAdapter = {
  surface: 'openai-chat',
  shape: 'openai-chat',
  listKey: 'tools',

  readTools(body) {
    const problems = new RequestProblems(KIND);
    const tools = LISTS.read(body, problems, () => listTools(body, problems));
    if (body.function_call !== undefined && body.function_call !== null) {
      // Unread, it would reach the provider unmediated (it may name a hidden tool).
      problems.add('function_call', 'is only valid with (deprecated) functions; use tool_choice');
    }
    readWebSearchOptions(body, tools, problems);
    problems.throwIfAny();
    return tools;
  },

  functionParts(raw) {
    const fn = isJsonObject(raw.function) ? raw.function : {};
    const parts: FunctionParts = { name: String(fn.name) };
    if (typeof fn.description === 'string') parts.description = fn.description;
    if (isJsonObject(fn.parameters)) parts.parameters = fn.parameters;
    return parts;
  },

  writeFunction(parts, base) {
    const baseFn = base && isJsonObject(base.function) ? base.function : {};
    const fn: JsonObject = { ...baseFn, name: parts.name };
    if (parts.description !== undefined) fn.description = parts.description;
    else delete fn.description;
    if (parts.parameters !== undefined) fn.parameters = parts.parameters;
    else delete fn.parameters;
    // Keep the agent's own shape (a declaration without `type` stays so): only a new
    // declaration gets `type: function`.
    return { ...(base ?? { type: 'function' }), function: fn };
  },

  readToolChoice(body) {
    const choice = body.tool_choice;
    if (choice === undefined || choice === null) return { kind: 'absent' };
    if (!isJsonObject(choice)) return { kind: 'mode', raw: choice };
    if (choice.type === 'function' && isJsonObject(choice.function)) {
      return { kind: 'named', name: String(choice.function.name), raw: choice };
    }
    if (choice.type === 'custom' && isJsonObject(choice.custom)) {
      return { kind: 'named', name: String(choice.custom.name), raw: choice };
    }
    const allowed = choice.allowed_tools;
    if (choice.type === 'allowed_tools' && isJsonObject(allowed) && Array.isArray(allowed.tools)) {
      const names = allowed.tools.map((t) => (isJsonObject(t) ? toolRefName(t) : ''));
      return { kind: 'allowed', names, raw: choice };
    }
    return { kind: 'mode', raw: choice };
  },

  renameToolChoice(choice, providerNames) {
    if (choice.kind === 'named') {
      const key = choice.raw.type === 'custom' ? 'custom' : 'function';
      const inner = choice.raw[key] as JsonObject;
      return { ...choice.raw, [key]: { ...inner, name: providerNames[0] ?? '' } };
    }
    if (choice.kind === 'allowed') {
      const allowed = choice.raw.allowed_tools as JsonObject;
      const tools = providerNames.map((name) => ({ type: 'function', function: { name } }));
      return { ...choice.raw, allowed_tools: { ...allowed, tools } };
    }
    return choice.kind === 'mode' ? choice.raw : null;
  },

  writeRequest(body, edit) {
    let out: JsonObject = { ...body };
    if (edit.declarations.length > 0) out.tools = edit.declarations as JsonObject[];
    else {
      // OpenAI rejects tool_choice and parallel_tool_calls without tools.
      delete out.tools;
      delete out.parallel_tool_calls;
    }
    out = withKey(out, 'tool_choice', edit.declarations.length > 0 ? edit.toolChoice : undefined);
    if (edit.hiddenRequestLevel.some((t) => t.origin === 'web_search_options')) {
      delete out.web_search_options;
    }
    if (edit.renames.size > 0 && Array.isArray(body.messages)) {
      out.messages = body.messages.map((m) => renameHistory(m, edit.renames));
    }
    return out;
  },
};

/** OpenAI's `web_search_options`: a request-level provider-hosted tool named `web_search`. */
export function readWebSearchOptions(
  body: JsonObject,
  tools: RequestTool[],
  problems: RequestProblems,
): void {
  const webSearch = body.web_search_options;
  if (webSearch === undefined || webSearch === null) return;
  if (!isJsonObject(webSearch)) {
    problems.add('web_search_options', 'must be an object');
    return;
  }
  tools.push({
    name: 'web_search',
    type: 'web_search_options',
    kind: 'provider',
    declaredBy: 'provider',
    executedBy: 'provider',
    capability: 'wardwright.web_search.v1',
    raw: webSearch,
    origin: 'web_search_options',
    index: 0,
  });
}

/** The function and custom tools of `body.tools`. */
function listTools(body: JsonObject, problems: RequestProblems): RequestTool[] {
  const tools: RequestTool[] = [];
  for (const [index, raw] of readToolArray(body, problems).entries()) {
    const type = raw.type ?? 'function';
    if (type === 'function') {
      const fn = raw.function;
      if (!isJsonObject(fn)) problems.add(`tools[${index}].function`, 'is required');
      else {
        const name = nonEmptyString(fn.name, `tools[${index}].function.name`, problems);
        if (name) tools.push(functionTool(name, raw, index));
      }
    } else if (type === 'custom') {
      const custom = raw.custom;
      if (!isJsonObject(custom)) problems.add(`tools[${index}].custom`, 'is required');
      else {
        const name = nonEmptyString(custom.name, `tools[${index}].custom.name`, problems);
        if (name) {
          tools.push({ ...functionTool(name, raw, index), type: 'custom', kind: 'provider' });
        }
      }
    } else {
      problems.add(`tools[${index}].type`, 'must be "function" or "custom"');
    }
  }
  return tools;
}

/** An agent's own function tool at `tools[index]`. */
export function functionTool(name: string, raw: JsonObject, index: number): RequestTool {
  return {
    name,
    type: 'function',
    kind: 'function',
    declaredBy: declaredByName(name),
    executedBy: 'agent',
    raw,
    origin: 'tools',
    index,
  };
}

function toolRefName(ref: JsonObject): string {
  const inner = isJsonObject(ref.function)
    ? ref.function
    : isJsonObject(ref.custom)
      ? ref.custom
      : {};
  return typeof inner.name === 'string' ? inner.name : '';
}

/** MCP tools reach agents as `server/tool` or `mcp__server__tool`. */
export function declaredByName(name: string): 'agent' | 'mcp' {
  return name.includes('/') || name.startsWith('mcp__') ? 'mcp' : 'agent';
}

/**
 * One history message with tool names renamed for the provider: an assistant's `tool_calls`
 * and legacy `function_call`, and a legacy `role: "function"` result's `name`.
 */
export function renameHistory(message: JsonValue, renames: ReadonlyMap<string, string>): JsonValue {
  if (!isJsonObject(message)) return message;
  let out = message;
  if (Array.isArray(message.tool_calls)) {
    let changed = false;
    const calls = message.tool_calls.map((call) => {
      if (!isJsonObject(call) || !isJsonObject(call.function)) return call;
      const renamed = renames.get(String(call.function.name));
      if (renamed === undefined) return call;
      changed = true;
      return { ...call, function: { ...call.function, name: renamed } };
    });
    if (changed) out = { ...out, tool_calls: calls };
  }
  const legacy = message.function_call;
  const legacyRenamed = isJsonObject(legacy) ? renames.get(String(legacy.name)) : undefined;
  if (isJsonObject(legacy) && legacyRenamed !== undefined) {
    out = { ...out, function_call: { ...legacy, name: legacyRenamed } };
  }
  const resultRenamed =
    message.role === 'function' && typeof message.name === 'string'
      ? renames.get(message.name)
      : undefined;
  if (resultRenamed !== undefined) out = { ...out, name: resultRenamed };
  return out;
}
