import type { JsonObject, JsonValue } from '../json/json-value.ts';
import type { ToolDeclarationInput } from '../resources/mediation-policy.ts';
import type { DeclaredBy, ExecutedBy, Surface } from '../resources/vocabulary.ts';
import type { ActionIdentity } from './action.ts';
import type { CompiledBundle } from './compile-bundle.ts';
import type { ProviderNameRule } from './provider-names.ts';
import type { HistoryCall } from './rule-condition.ts';
import type { ToolResults } from './tool-results.ts';
import { replacementParts } from './tool-schema.ts';

/** A tool as the engine sees it, whatever surface it came from. */
export interface RequestTool {
  /** Agent-facing name: what rules match and what calls are mapped back to. */
  readonly name: string;
  /**
   * The name the provider sees before any rule, when it differs from `name`: an MCP tool is
   * matched as `<server>/<tool>` but offered (and called) as `<tool>`.
   */
  readonly exposedName?: string;
  /** `function` for function tools, else the provider's native type (`web_search_20250305`). */
  readonly type: string;
  /** Function tools can be augmented, renamed and replaced; provider-defined tools cannot. */
  readonly kind: 'function' | 'provider';
  readonly declaredBy: DeclaredBy;
  readonly executedBy: ExecutedBy;
  /** Capability contract of a provider-hosted tool. */
  readonly capability?: string;
  /** The declaration exactly as the agent (or the gateway) sent it; its hash is the schema hash. */
  readonly raw: JsonObject;
  /**
   * Where it lives in the request: the `tools` array (or OpenAI's legacy `functions`, which the
   * engine treats the same), a request-level field such as OpenAI's `web_search_options` or
   * Anthropic's `mcp_servers[]`, a gateway-hosted tool, or `native_tools`: a typed entry of
   * `tools` the model never calls by name (OpenAI Responses' `web_search`, `mcp`, …), offered
   * or withheld as a whole and reported by the output items it produces.
   */
  readonly origin:
    | 'tools'
    | 'functions'
    | 'web_search_options'
    | 'mcp_servers'
    | 'hosted'
    | 'native_tools';
  /**
   * Position within its origin (`tools[index]`, `functions[index]`, `mcp_servers[index]`,
   * hosted tool index; `tools[index]` for `native_tools`).
   */
  readonly index: number;
  /**
   * The declaration's field path when `origin[index]` is not it: Gemini nests declarations in
   * `tools[i].functionDeclarations[j]`, and a built-in tool is the field `tools[i].googleSearch`.
   */
  readonly path?: string;
  /**
   * For a tool the gateway's tool loop runs (docs/hosted-tools.md): `tool_info`, or the
   * HostedTool resource's name. Absent for every other tool, gateway-declared ones included.
   */
  readonly hostedBy?: string;
}

/** The parts of a function tool that rules edit. */
export interface FunctionParts {
  name: string;
  description?: string;
  parameters?: JsonObject;
}

/** A tool_choice, reduced to what mediation needs to keep it consistent with the tools. */
export type ToolChoice =
  | { kind: 'absent' }
  /** `auto`, `none`, `required` / `{type: any}`: valid as long as some tool remains. */
  | { kind: 'mode'; raw: JsonValue }
  /** Forces one tool by (agent-facing) name. */
  | { kind: 'named'; name: string; raw: JsonObject }
  /** OpenAI `allowed_tools`: restricts to a subset. */
  | { kind: 'allowed'; names: string[]; raw: JsonObject };

/** Everything surface-specific the engine needs: reading and writing one provider's request. */
export interface SurfaceAdapter {
  readonly surface: Surface;
  /**
   * The request shape this adapter reads and writes (`openai-chat`, `openai-chat/functions`, …):
   * part of every memo key, since the same rule writes a declaration differently per shape.
   */
  readonly shape: string;
  /** The request field holding the callable declarations: `tools`, or legacy `functions`. */
  readonly listKey: 'tools' | 'functions';
  /**
   * False when the names need no provider-legal aliases (MCP: the agent's MCP client reads
   * them, not an LLM provider). Absent: illegal names get an alias.
   */
  readonly aliasIllegalNames?: false;
  /** The provider's function-name rule; absent: OpenAI's and Anthropic's `[a-zA-Z0-9_-]{1,64}`. */
  readonly nameRule?: ProviderNameRule;
  /** Reads every tool in the request, or throws a ValidationError with field paths. */
  readTools(body: JsonObject): RequestTool[];
  functionParts(raw: JsonObject): FunctionParts;
  /** Writes a function declaration; `base` keeps fields rules do not touch (strict, cache_control). */
  writeFunction(parts: FunctionParts, base?: JsonObject): JsonObject;
  readToolChoice(body: JsonObject): ToolChoice;
  /** Native tool_choice naming `providerName` instead of the agent's name. */
  renameToolChoice(choice: ToolChoice, providerNames: ReadonlyArray<string>): JsonValue;
  /**
   * The provider's tool_choice, when the surface's forms say more than `readToolChoice` can
   * (OpenAI Responses: a forced hosted tool, `allowed_tools` mixing functions and hosted tools):
   * written from the tools the provider is offered. Undefined removes it. Absent: the engine
   * keeps, renames or drops the choice `readToolChoice` read.
   */
  writeToolChoice?(body: JsonObject, offered: ReadonlyArray<OfferedTool>): JsonValue | undefined;
  /**
   * The provider request: `tools` replaced by `declarations` (removed with tool_choice when
   * empty), request-level tools dropped when hidden, history tool names renamed.
   */
  writeRequest(body: JsonObject, edit: RequestEdit): JsonObject;
  /**
   * The calls earlier in the conversation, for conditions' `history`; absent: read from
   * `messages` (condition-outcomes.ts). For a surface whose history lives elsewhere (OpenAI
   * Responses' `input` items, Gemini's `contents`).
   */
  readHistory?(body: JsonObject): HistoryCall[];
  /** The tool results the request carries; absent: read from `messages` (tool-results.ts). */
  readToolResults?(
    bundle: Pick<CompiledBundle, 'metaTools' | 'redact'>,
    body: JsonObject,
    identity: ActionIdentity | undefined,
  ): ToolResults;
}

/** A tool the provider request offers, under the name the provider sees. */
export interface OfferedTool {
  readonly tool: RequestTool;
  /** Current type: `function` once a rule replaced a typed tool with a function. */
  readonly type: string;
  readonly providerName: string;
}

export interface RequestEdit {
  declarations: ReadonlyArray<JsonObject>;
  /** The new tool_choice; `undefined` removes it. */
  toolChoice: JsonValue | undefined;
  /**
   * Tools outside the provider's callable list the policy hid or replaced: request-level ones,
   * and `native_tools` (which the adapter writes back from the request itself).
   */
  hiddenRequestLevel: ReadonlyArray<RequestTool>;
  /** agent name → provider name, for names that differ (history must follow). */
  renames: ReadonlyMap<string, string>;
}

/** Gateway-hosted tools as request tools, written in the request's surface format. */
export function hostedTools(
  adapter: SurfaceAdapter,
  declarations: ReadonlyArray<ToolDeclarationInput>,
): RequestTool[] {
  return declarations.map((declaration, index) => {
    const parts = replacementParts(declaration);
    return {
      name: parts.name,
      type: 'function',
      kind: 'function',
      declaredBy: 'wardwright',
      executedBy: 'wardwright',
      raw: adapter.writeFunction(parts),
      origin: 'hosted',
      index,
    };
  });
}
