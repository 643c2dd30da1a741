import { isJsonObject, type JsonObject, type JsonValue } from '../../json/json-value.ts';
import { RECEIPT_LIMITS, receiptTextProblem } from '../../receipt/receipt-limits.ts';
import type { ExecutedBy } from '../../resources/vocabulary.ts';
import type { ProviderNameRule } from '../provider-names.ts';
import type { FunctionParts, RequestTool, SurfaceAdapter } from '../request-tool.ts';
import { readGeminiHistory, readGeminiToolResults } from './gemini-history.ts';
import { functionTool } from './openai-chat.ts';
import { nonEmptyString, RequestProblems, ToolListMemo, withKey } from './request-fields.ts';

const KIND = 'GenerateContentRequest';
const LISTS = new ToolListMemo();

/**
 * Gemini's function-name rule (`FunctionDeclaration.name`): starts with a letter or an
 * underscore; letters, digits, `_`, `.`, `:` and `-`; at most 64 characters. MCP-style
 * `github/create_issue` is not legal and gets the alias `github_create_issue`.
 */
export const GEMINI_NAME_RULE: ProviderNameRule = {
  legal: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/,
  illegalChars: /[^a-zA-Z0-9_.:-]/g,
  maxLength: 64,
  validStart: /^[a-zA-Z_]/,
};

/**
 * The `Tool` fields other than `functionDeclarations`: Gemini's built-in tools, each a tool of
 * its own named by its field. Who runs it, and the capability contract it falls under. A field
 * not listed here (a tool Google adds later) is still a tool the policy can hide, with no
 * contract (opaque).
 */
const BUILT_IN_TOOLS: Readonly<Record<string, { executedBy: ExecutedBy; capability: string }>> = {
  googleSearch: { executedBy: 'provider', capability: 'wardwright.web_search.v1' },
  googleSearchRetrieval: { executedBy: 'provider', capability: 'wardwright.web_search.v1' },
  codeExecution: { executedBy: 'provider', capability: 'wardwright.code_exec.v1' },
  urlContext: { executedBy: 'provider', capability: 'wardwright.url_fetch.v1' },
  fileSearch: { executedBy: 'provider', capability: 'wardwright.file_search.v1' },
  mcpServers: { executedBy: 'remote_mcp', capability: 'wardwright.mcp_tool.v1' },
  computerUse: { executedBy: 'agent', capability: 'wardwright.computer_use.v1' },
};

/**
 * Google Gemini `generateContent` / `streamGenerateContent` (`POST
 * /v1beta/models/{model}:generateContent`). The model and stream flag come from the URL path
 * (`MediationInput.target`). Declarations are nested: `tools[i].functionDeclarations[j]` are
 * function tools; every other field of a `tools[i]` entry (`googleSearch`, `codeExecution`,
 * `urlContext`, …) is a built-in tool named by its field. The provider request regroups the
 * surviving function declarations into one `{functionDeclarations}` entry, followed by the
 * surviving built-ins, one entry each. `toolConfig.functionCallingConfig` is the tool choice:
 * its `allowedFunctionNames` is kept to visible tools (provider names), and it is dropped when
 * none is left or no function tool remains.
 */
export const geminiAdapter: SurfaceAdapter = {
  surface: 'gemini',
  shape: 'gemini',
  listKey: 'tools',
  nameRule: GEMINI_NAME_RULE,

  readTools(body) {
    const problems = new RequestProblems(KIND);
    refuseCachedContent(body, problems);
    const tools = LISTS.read(body, problems, () => listTools(body, problems));
    checkFunctionCallingConfig(body, problems);
    checkContents(body, problems);
    problems.throwIfAny();
    return tools;
  },

  functionParts(raw) {
    const parts: FunctionParts = { name: String(raw.name) };
    if (typeof raw.description === 'string') parts.description = raw.description;
    const parameters = raw[parameterKey(raw)];
    if (isJsonObject(parameters)) parts.parameters = parameters;
    return parts;
  },

  writeFunction(parts, base) {
    // A rule's schema goes where the agent's was: `parameters` (Gemini's OpenAPI subset) or
    // `parametersJsonSchema`; a new declaration gets JSON Schema, which is what rules hold.
    const key = base ? parameterKey(base) : 'parametersJsonSchema';
    const out: JsonObject = { ...(base ?? {}), name: parts.name };
    if (parts.description !== undefined) out.description = parts.description;
    else delete out.description;
    if (parts.parameters !== undefined) out[key] = parts.parameters;
    else delete out[key];
    return out;
  },

  readToolChoice(body) {
    const config = functionCallingConfigOf(body);
    if (config === undefined) return { kind: 'absent' };
    const names = config.allowedFunctionNames;
    if (Array.isArray(names) && names.length > 0) {
      return { kind: 'allowed', names: names.map(String), raw: config };
    }
    return { kind: 'mode', raw: config };
  },

  renameToolChoice(choice, providerNames) {
    if (choice.kind === 'allowed') {
      return { ...choice.raw, allowedFunctionNames: [...providerNames] };
    }
    return choice.kind === 'mode' ? choice.raw : null;
  },

  writeRequest(body, edit) {
    const functions: JsonObject[] = [];
    const builtIns: JsonObject[] = [];
    for (const declaration of edit.declarations) {
      (isFunctionDeclaration(declaration) ? functions : builtIns).push(declaration);
    }
    const tools = geminiToolList(functions, builtIns);
    let out = withKey(body, 'tools', tools.length > 0 ? tools : undefined);
    // A function calling config without function tools has nothing to configure.
    out = withFunctionCallingConfig(out, functions.length > 0 ? edit.toolChoice : undefined);
    if (edit.renames.size > 0 && Array.isArray(body.contents)) {
      out.contents = body.contents.map((content) => renameHistory(content, edit.renames));
    }
    return out;
  },

  readHistory: readGeminiHistory,
  readToolResults: readGeminiToolResults,
};

/**
 * A Gemini `tools` list: the function declarations in one `{functionDeclarations}` entry, then
 * each built-in tool entry (`{googleSearch: {}}`) as it was declared.
 */
export function geminiToolList(
  functions: ReadonlyArray<JsonObject>,
  builtIns: ReadonlyArray<JsonObject>,
): JsonObject[] {
  const list: JsonObject[] = functions.length > 0 ? [{ functionDeclarations: [...functions] }] : [];
  return [...list, ...builtIns];
}

/** A function declaration (`{name, …}`), as opposed to a built-in tool entry (`{googleSearch}`). */
export function isFunctionDeclaration(declaration: JsonObject): boolean {
  // A built-in entry holds one field whose value is an object or an array, never a string.
  return typeof declaration.name === 'string';
}

function parameterKey(declaration: JsonObject): 'parameters' | 'parametersJsonSchema' {
  return declaration.parameters !== undefined && declaration.parametersJsonSchema === undefined
    ? 'parameters'
    : 'parametersJsonSchema';
}

function functionCallingConfigOf(body: JsonObject): JsonObject | undefined {
  const toolConfig = body.toolConfig;
  if (!isJsonObject(toolConfig)) return undefined;
  const config = toolConfig.functionCallingConfig;
  return isJsonObject(config) ? config : undefined;
}

/** `body` with `toolConfig.functionCallingConfig` set, or removed (and an emptied toolConfig). */
function withFunctionCallingConfig(body: JsonObject, config: JsonValue | undefined): JsonObject {
  const toolConfig = body.toolConfig;
  if (!isJsonObject(toolConfig)) return body;
  const next = withKey(toolConfig, 'functionCallingConfig', config);
  return withKey(body, 'toolConfig', Object.keys(next).length > 0 ? next : undefined);
}

/**
 * A request naming stored cached content is refused: the cache holds its own tools, tool
 * config, system instruction and history (Gemini forbids sending them alongside), so the policy
 * could see neither what the provider offers the model nor what it already called.
 */
function refuseCachedContent(body: JsonObject, problems: RequestProblems): void {
  if (body.cachedContent === undefined || body.cachedContent === null) return;
  problems.add(
    'cachedContent',
    'is not supported through Toolgate (cached content carries tools and history the policy ' +
      'cannot see); send the tools and contents in the request',
  );
}

/** The function declarations and built-in tools of `body.tools`, with field paths. */
function listTools(body: JsonObject, problems: RequestProblems): RequestTool[] {
  const list = body.tools;
  const tools: RequestTool[] = [];
  if (list === undefined || list === null) return tools;
  if (!Array.isArray(list)) {
    problems.add('tools', 'must be an array');
    return tools;
  }
  const tooMany = () => {
    // Every tool lands in the receipt: a list no receipt could hold is refused, not forwarded.
    problems.add('tools', `must declare at most ${RECEIPT_LIMITS.tools} tools in all`);
  };
  for (const [i, entry] of list.entries()) {
    if (!isJsonObject(entry)) {
      problems.add(`tools[${i}]`, 'must be an object');
      continue;
    }
    for (const [field, value] of Object.entries(entry)) {
      const path = `tools[${i}].${field}`;
      if (field === 'functionDeclarations') {
        if (readDeclarations(value, path, tools, problems)) continue;
        tooMany();
        return tools;
      }
      const typeProblem = receiptTextProblem(field, RECEIPT_LIMITS.toolType);
      if (typeProblem !== undefined) problems.add(`tools[${i}]`, `field name ${typeProblem}`);
      else if (!isJsonObject(value) && !Array.isArray(value)) {
        problems.add(path, 'must be an object');
      } else if (tools.length >= RECEIPT_LIMITS.tools) {
        tooMany();
        return tools;
      } else {
        tools.push(builtInTool(field, value, tools.length, path));
      }
    }
  }
  return tools;
}

/** Reads `tools[i].functionDeclarations`; false when the receipt limit on tools is passed. */
function readDeclarations(
  value: JsonValue | undefined,
  path: string,
  tools: RequestTool[],
  problems: RequestProblems,
): boolean {
  if (!Array.isArray(value)) {
    problems.add(path, 'must be an array');
    return true;
  }
  for (const [j, declaration] of value.entries()) {
    const at = `${path}[${j}]`;
    if (!isJsonObject(declaration)) {
      problems.add(at, 'must be an object');
      continue;
    }
    const name = nonEmptyString(declaration.name, `${at}.name`, problems);
    for (const key of ['parameters', 'parametersJsonSchema'] as const) {
      const schema = declaration[key];
      if (schema !== undefined && !isJsonObject(schema)) {
        problems.add(`${at}.${key}`, 'must be an object');
      }
    }
    if (declaration.parameters !== undefined && declaration.parametersJsonSchema !== undefined) {
      problems.add(`${at}.parametersJsonSchema`, 'cannot be combined with parameters');
    }
    if (!name) continue;
    if (tools.length >= RECEIPT_LIMITS.tools) return false;
    tools.push({ ...functionTool(name, declaration, tools.length), path: at });
  }
  return true;
}

function builtInTool(field: string, value: JsonValue, index: number, path: string): RequestTool {
  const known = BUILT_IN_TOOLS[field];
  const executedBy = known?.executedBy ?? 'provider';
  return {
    name: field,
    type: field,
    kind: 'provider',
    declaredBy: executedBy === 'agent' ? 'agent' : 'provider',
    executedBy,
    ...(known ? { capability: known.capability } : {}),
    raw: { [field]: value },
    origin: 'tools',
    index,
    path,
  };
}

/**
 * `toolConfig.functionCallingConfig` is read to keep it consistent with the tools, so its
 * shape is checked; streamed function-call arguments (a Vertex AI feature Gemini's API does not
 * support) would split a call across chunks, and are refused.
 */
function checkFunctionCallingConfig(body: JsonObject, problems: RequestProblems): void {
  const toolConfig = body.toolConfig;
  if (toolConfig === undefined || toolConfig === null) return;
  if (!isJsonObject(toolConfig)) {
    problems.add('toolConfig', 'must be an object');
    return;
  }
  const config = toolConfig.functionCallingConfig;
  if (config === undefined || config === null) return;
  const at = 'toolConfig.functionCallingConfig';
  if (!isJsonObject(config)) {
    problems.add(at, 'must be an object');
    return;
  }
  if (config.mode !== undefined && typeof config.mode !== 'string') {
    problems.add(`${at}.mode`, 'must be a string');
  }
  const names = config.allowedFunctionNames;
  if (names !== undefined && names !== null) {
    if (!Array.isArray(names)) problems.add(`${at}.allowedFunctionNames`, 'must be an array');
    else {
      names.forEach((name, k) => {
        if (typeof name !== 'string') {
          problems.add(`${at}.allowedFunctionNames[${k}]`, 'must be a string');
        }
      });
    }
  }
  if (config.streamFunctionCallArguments === true) {
    problems.add(
      `${at}.streamFunctionCallArguments`,
      'is not supported through Toolgate (a call must arrive whole to be judged)',
    );
  }
}

/** `contents` carries the history renames and results are read from: an array of objects. */
function checkContents(body: JsonObject, problems: RequestProblems): void {
  const contents = body.contents;
  if (contents === undefined || contents === null) return;
  if (!Array.isArray(contents)) {
    problems.add('contents', 'must be an array');
    return;
  }
  contents.forEach((content, i) => {
    if (!isJsonObject(content)) problems.add(`contents[${i}]`, 'must be an object');
    else if (content.parts !== undefined && !Array.isArray(content.parts)) {
      problems.add(`contents[${i}].parts`, 'must be an array');
    }
  });
}

/** One history content with `functionCall` and `functionResponse` names renamed for the provider. */
function renameHistory(content: JsonValue, renames: ReadonlyMap<string, string>): JsonValue {
  if (!isJsonObject(content) || !Array.isArray(content.parts)) return content;
  let changed = false;
  const parts = content.parts.map((part) => {
    if (!isJsonObject(part)) return part;
    for (const key of ['functionCall', 'functionResponse'] as const) {
      const inner = part[key];
      if (!isJsonObject(inner)) continue;
      const renamed = typeof inner.name === 'string' ? renames.get(inner.name) : undefined;
      if (renamed === undefined) continue;
      changed = true;
      return { ...part, [key]: { ...inner, name: renamed } };
    }
    return part;
  });
  return changed ? { ...content, parts } : content;
}
