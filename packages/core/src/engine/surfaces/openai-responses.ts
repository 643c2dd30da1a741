import { rememberJsonText } from '../../json/json-text.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../json/json-value.ts';
import type { FunctionParts, OfferedTool, SurfaceAdapter, ToolChoice } from '../request-tool.ts';
import {
  readResponsesHistory,
  readResponsesInput,
  readResponsesToolResults,
  renameInputItem,
} from './openai-responses-input.ts';
import { isProviderRun, nativeToolName, readResponsesTools } from './openai-responses-tools.ts';
import { RequestProblems, ToolListMemo, withKey } from './request-fields.ts';

export const RESPONSES_KIND = 'ResponsesRequest';
const LISTS = new ToolListMemo();

/**
 * OpenAI Responses (`POST /v1/responses`). Function and custom tools are mediated as on every
 * surface; typed tools (web search, file search, code interpreter, remote MCP, computer, shells…)
 * are offered or withheld as a whole. `input` items carry the history the request holds: calls
 * are renamed for the provider, results read for the receipt. With `previous_response_id` or a
 * `conversation` the provider keeps the rest, unseen (docs/mediation.md says what that means).
 */
export const openAIResponsesAdapter: SurfaceAdapter = {
  surface: 'openai-responses',
  shape: 'openai-responses',
  listKey: 'tools',

  readTools(body) {
    const problems = new RequestProblems(RESPONSES_KIND);
    if (body.prompt !== undefined && body.prompt !== null) {
      // A stored prompt brings its own tools and instructions, which the gateway never sees.
      problems.add(
        'prompt',
        'stored prompts are not supported through Toolgate (their tools cannot be mediated); ' +
          'send instructions and tools inline',
      );
    }
    if (body.background === true) {
      // Its output is fetched later (GET /v1/responses/{id}), past any judgement of its calls.
      problems.add(
        'background',
        'background responses are not supported through Toolgate (their output is retrieved ' +
          'later, unmediated); send the request without background',
      );
    }
    const tools = LISTS.read(body, problems, () => readResponsesTools(body, problems));
    readResponsesInput(body.input, problems);
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
    // A declaration of the gateway's own (a replacement, a hosted tool) is not strict: its schema
    // was not written for strict mode's rules, and the Responses API would enforce them.
    const out: JsonObject = { ...(base ?? { type: 'function', strict: false }), name: parts.name };
    if (parts.description !== undefined) out.description = parts.description;
    else delete out.description;
    if (parts.parameters !== undefined) out.parameters = parts.parameters;
    else if (base === undefined) out.parameters = { type: 'object', properties: {} };
    else delete out.parameters;
    return out;
  },

  readToolChoice(body) {
    const choice = body.tool_choice;
    if (choice === undefined || choice === null) return { kind: 'absent' };
    if (!isJsonObject(choice)) return { kind: 'mode', raw: choice };
    if (
      (choice.type === 'function' || choice.type === 'custom') &&
      typeof choice.name === 'string'
    ) {
      return { kind: 'named', name: choice.name, raw: choice };
    }
    if (choice.type === 'allowed_tools' && Array.isArray(choice.tools)) {
      const names = choice.tools.map((ref) => (isJsonObject(ref) ? refName(ref) : ''));
      return { kind: 'allowed', names, raw: choice };
    }
    return { kind: 'mode', raw: choice };
  },

  renameToolChoice(choice: ToolChoice, providerNames) {
    if (choice.kind === 'named') return { ...choice.raw, name: providerNames[0] ?? '' };
    if (choice.kind === 'allowed') {
      return { ...choice.raw, tools: providerNames.map((name) => ({ type: 'function', name })) };
    }
    return choice.kind === 'mode' ? choice.raw : null;
  },

  writeToolChoice(body, offered) {
    const choice = body.tool_choice;
    if (choice === undefined || choice === null) return undefined;
    if (!isJsonObject(choice)) return choice;
    if (choice.type === 'allowed_tools') {
      if (!Array.isArray(choice.tools)) return choice; // the provider refuses it as it is
      const tools = choice.tools.flatMap((ref) => {
        const kept = isJsonObject(ref) ? offeredRef(ref, offered) : ref;
        return kept === undefined ? [] : [kept];
      });
      // Restricted to tools that are all hidden: no restriction is left to send.
      return tools.length > 0 ? { ...choice, tools } : undefined;
    }
    return offeredRef(choice, offered);
  },

  writeRequest(body, edit) {
    let out: JsonObject = { ...body };
    const hidden = new Set(
      edit.hiddenRequestLevel.filter((t) => t.origin === 'native_tools').map((t) => t.index),
    );
    const tools = providerTools(edit.declarations, body.tools, hidden);
    if (tools.length > 0) out.tools = tools;
    else {
      delete out.tools;
      delete out.parallel_tool_calls;
    }
    out = withKey(out, 'tool_choice', tools.length > 0 ? edit.toolChoice : undefined);
    if (edit.renames.size > 0 && Array.isArray(body.input)) {
      out.input = body.input.map((item) => renameInputItem(item, edit.renames));
    }
    return out;
  },

  readHistory: readResponsesHistory,
  readToolResults: readResponsesToolResults,
};

/** The provider's tools, per (declarations, request tool list): see {@link providerTools}. */
const PROVIDER_TOOLS = new WeakMap<object, { source: object; tools: JsonObject[] }>();

/**
 * The provider's `tools`: the function declarations, then the provider-run typed tools kept,
 * taken from the request itself (the engine's copy of an MCP tool has its credentials
 * redacted). Without typed tools it is the declarations array itself, whose JSON text the
 * engine remembers; with them, the array made for a frozen tool list (an agent resending its
 * tools) is kept frozen with its text, so serializing it costs no more on the next turn.
 */
function providerTools(
  declarations: ReadonlyArray<JsonObject>,
  requested: JsonValue | undefined,
  hidden: ReadonlySet<number>,
): JsonObject[] {
  if (!Array.isArray(requested)) return declarations as JsonObject[];
  const known = PROVIDER_TOOLS.get(declarations);
  if (known !== undefined && known.source === requested) return known.tools;
  const typed = requested.filter((tool, index) => isProviderRun(tool) && !hidden.has(index));
  if (typed.length === 0) return declarations as JsonObject[];
  const tools = [...declarations, ...typed] as JsonObject[];
  if (Object.isFrozen(requested) && Object.isFrozen(declarations)) {
    // Both deep-frozen (the request parser's tool list, the memo's declarations): so is this.
    Object.freeze(tools);
    rememberJsonText(tools);
    PROVIDER_TOOLS.set(declarations, { source: requested, tools });
  }
  return tools;
}

/** The agent-facing name a tool_choice reference points at. */
function refName(ref: JsonObject): string {
  if (ref.type === 'function' || ref.type === 'custom') {
    return typeof ref.name === 'string' ? ref.name : '';
  }
  if (ref.type === 'mcp') return typeof ref.server_label === 'string' ? ref.server_label : '';
  return typeof ref.type === 'string' ? (nativeToolName(ref.type) ?? '') : '';
}

/**
 * A tool_choice reference (`{type: "function", name}`, `{type: "mcp", server_label}`,
 * `{type: "web_search_preview"}`, …) as the provider must see it: renamed to the provider name
 * when it names a function, as it is when it names an offered typed tool, undefined when what it
 * names is not offered (hidden, or never declared).
 */
function offeredRef(ref: JsonObject, offered: ReadonlyArray<OfferedTool>): JsonObject | undefined {
  const name = refName(ref);
  if (name === '') return undefined;
  const called = ref.type === 'function' || ref.type === 'custom';
  const target = offered.find(
    (o) => o.tool.name === name && (called ? isCalledByName(o) : !isCalledByName(o)),
  );
  if (target === undefined) return undefined;
  return called && target.providerName !== name ? { ...ref, name: target.providerName } : ref;
}

/** A function or custom tool (the agent's, or one a rule put in place of a typed tool). */
function isCalledByName(offered: OfferedTool): boolean {
  return offered.type === 'function' || offered.type === 'custom';
}
