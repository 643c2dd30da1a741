import { isJsonObject, type JsonObject } from '../../json/json-value.ts';
import type { FunctionParts, RequestTool, SurfaceAdapter } from '../request-tool.ts';
import { declaredByName, readWebSearchOptions, renameHistory } from './openai-chat.ts';
import {
  nonEmptyString,
  RequestProblems,
  readToolArray,
  ToolListMemo,
  withKey,
} from './request-fields.ts';

const KIND = 'ChatCompletionRequest';
const LISTS = new ToolListMemo();

/**
 * OpenAI Chat Completions with the deprecated `functions` + `function_call` instead of `tools` +
 * `tool_choice`. Mediated exactly like `tools`: the declarations are bare
 * `{name, description, parameters}` objects, `function_call: {name}` is the named choice (`"auto"`
 * and `"none"` the modes), and the response's `message.function_call` / `delta.function_call` is
 * judged and renamed back like a tool call. Mixing the two forms is refused: the provider would
 * have to pick one, and each would have to be mediated against the other.
 */
export const openAIFunctionsAdapter: SurfaceAdapter = {
  surface: 'openai-chat',
  shape: 'openai-chat/functions',
  listKey: 'functions',

  readTools(body) {
    const problems = new RequestProblems(KIND);
    for (const field of ['tools', 'tool_choice'] as const) {
      if (body[field] !== undefined && body[field] !== null) {
        problems.add(field, 'cannot be combined with (deprecated) functions; send tools only');
      }
    }
    const tools = LISTS.read(body, problems, () => listFunctions(body, problems), 'functions');
    readWebSearchOptions(body, tools, problems);
    problems.throwIfAny();
    return tools;
  },

  functionParts(raw) {
    const parts: FunctionParts = { name: String(raw.name) };
    if (typeof raw.description === 'string') parts.description = raw.description;
    if (isJsonObject(raw.parameters)) parts.parameters = raw.parameters;
    return parts;
  },

  writeFunction(parts, base) {
    const fn: JsonObject = { ...(base ?? {}), name: parts.name };
    if (parts.description !== undefined) fn.description = parts.description;
    else delete fn.description;
    if (parts.parameters !== undefined) fn.parameters = parts.parameters;
    else delete fn.parameters;
    return fn;
  },

  readToolChoice(body) {
    const choice = body.function_call;
    if (choice === undefined || choice === null) return { kind: 'absent' };
    if (isJsonObject(choice)) return { kind: 'named', name: String(choice.name), raw: choice };
    return { kind: 'mode', raw: choice };
  },

  renameToolChoice(choice, providerNames) {
    if (choice.kind === 'named') return { ...choice.raw, name: providerNames[0] ?? '' };
    return choice.kind === 'mode' ? choice.raw : null;
  },

  writeRequest(body, edit) {
    let out: JsonObject = { ...body };
    if (edit.declarations.length > 0) out.functions = edit.declarations as JsonObject[];
    else delete out.functions;
    out = withKey(out, 'function_call', edit.declarations.length > 0 ? edit.toolChoice : undefined);
    if (edit.hiddenRequestLevel.some((t) => t.origin === 'web_search_options')) {
      delete out.web_search_options;
    }
    if (edit.renames.size > 0 && Array.isArray(body.messages)) {
      out.messages = body.messages.map((m) => renameHistory(m, edit.renames));
    }
    return out;
  },
};

/** The declarations of `body.functions`. */
function listFunctions(body: JsonObject, problems: RequestProblems): RequestTool[] {
  const tools: RequestTool[] = [];
  for (const [index, raw] of readToolArray(body, problems, 'functions').entries()) {
    const name = nonEmptyString(raw.name, `functions[${index}].name`, problems);
    if (!name) continue;
    tools.push({
      name,
      type: 'function',
      kind: 'function',
      declaredBy: declaredByName(name),
      executedBy: 'agent',
      raw,
      origin: 'functions',
      index,
    });
  }
  return tools;
}
