import { hashLenient } from '../hash/hash.ts';
import type { JsonObject, JsonValue } from '../json/json-value.ts';
import type { HostedToolEvidence, ToolCallEvidence } from '../receipt/receipt-schema.ts';
import type { DeclaredBy, Fidelity, PolicyState, Surface } from '../resources/vocabulary.ts';
import type { HostedEventInput, ResponseContext } from '../response/response-context.ts';
import { normalizeAction, parseArguments } from './action.ts';
import { type CallUnderJudgement, judgeCall } from './call-decisions.ts';
import type { CallGate } from './call-gate.ts';
import type { CompiledBundle, RequestFacts } from './compile-bundle.ts';
import { conditionApplies, conditionFor, toolFacts } from './condition-outcomes.ts';
import { derivedFromFrozen } from './mediation-memo.ts';
import { readMetaCall } from './meta-tools.ts';
import { redactValue } from './redact.ts';
import type { RequestTool } from './request-tool.ts';

/** A tool after request-side mediation: what the response side decides with. */
export interface MediatedTool {
  readonly tool: RequestTool;
  /** Current type: a replaced provider tool becomes a `function`. */
  type: string;
  decl: JsonObject;
  hash: string;
  state: PolicyState;
  visible: boolean;
  /**
   * Whether it sits in the provider request's `tools` array (callable by name). False for
   * request-level tools such as `web_search_options`, unless a rule replaced one with a function.
   */
  inTools: boolean;
  /** The name the provider sees (and calls it by). */
  providerName: string;
}

export interface ResponseContextInput {
  surface: Surface;
  /** Approvals and rate-limit buckets for call-time rules; absent: none known, no limits. */
  gate?: CallGate;
  tools: ReadonlyArray<MediatedTool>;
  bundle: CompiledBundle;
  facts: RequestFacts;
  fidelityOf(tool: MediatedTool): Fidelity;
}

/**
 * Provider-hosted event types → the declared tool they belong to. Anthropic's code execution
 * tool reports bash and text-editor sub-calls under their own names.
 */
const HOSTED_TOOL_NAME: Record<string, string> = {
  url_citation: 'web_search',
  web_search_tool_result: 'web_search',
  web_fetch_tool_result: 'web_fetch',
  code_execution_tool_result: 'code_execution',
  bash_code_execution_tool_result: 'code_execution',
  text_editor_code_execution_tool_result: 'code_execution',
  bash_code_execution: 'code_execution',
  text_editor_code_execution: 'code_execution',
};
const HOSTED_CAPABILITY: Record<string, string> = {
  web_search: 'wardwright.web_search.v1',
  web_fetch: 'wardwright.url_fetch.v1',
  code_execution: 'wardwright.code_exec.v1',
  // Gemini's built-in tools, by request field.
  googleSearch: 'wardwright.web_search.v1',
  googleSearchRetrieval: 'wardwright.web_search.v1',
  urlContext: 'wardwright.url_fetch.v1',
  codeExecution: 'wardwright.code_exec.v1',
  fileSearch: 'wardwright.file_search.v1',
  // OpenAI Responses' hosted tools, by the names its adapter gives them.
  file_search: 'wardwright.file_search.v1',
  code_interpreter: 'wardwright.code_exec.v1',
};
/** Anthropic's MCP connector blocks and OpenAI Responses' remote MCP output items. */
const MCP_EVENTS = new Set([
  'mcp_tool_use',
  'mcp_tool_result',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_request',
]);

interface CallableTools {
  /** Provider name → the tool the provider may call by it. */
  callable: ReadonlyMap<string, MediatedTool>;
  /** Hidden tools by agent and provider name (a call to one is blocked as `hidden`). */
  hidden: ReadonlyMap<string, MediatedTool>;
  /** Agent and provider names of function tools: the agent runs them, never the provider. */
  functionNames: ReadonlySet<string>;
}

/** Per tool list: a memoized catalog's list is shared by every request that sends it. */
const CALLABLE = new WeakMap<ReadonlyArray<MediatedTool>, CallableTools>();

function callableTools(tools: ReadonlyArray<MediatedTool>): CallableTools {
  const callable = new Map<string, MediatedTool>();
  const hidden = new Map<string, MediatedTool>();
  const functionNames = new Set<string>();
  for (const t of tools) {
    if (!t.inTools) continue;
    if (t.type === 'function') functionNames.add(t.tool.name).add(t.providerName);
    if (t.visible) callable.set(t.providerName, t);
    else hidden.set(t.tool.name, t).set(t.providerName, t);
  }
  return { callable, hidden, functionNames };
}

/**
 * The MCP connector server a hosted MCP event belongs to: by server name when the event names
 * one, otherwise (a result, which names none) the first server offered.
 */
function mcpServerOf(
  tools: ReadonlyArray<MediatedTool>,
  server: string | undefined,
): MediatedTool | undefined {
  const servers = tools.filter(isMcpServer);
  if (server !== undefined) return servers.find((t) => t.tool.name === server);
  return servers.find(isLiveServer) ?? servers[0];
}

/** An MCP connector server: Anthropic's `mcp_servers[]`, an OpenAI Responses `mcp` tool. */
function isMcpServer(tool: MediatedTool): boolean {
  const { origin, executedBy } = tool.tool;
  return origin === 'mcp_servers' || (origin === 'native_tools' && executedBy === 'remote_mcp');
}

/** Offered as an MCP connector server (not hidden, not replaced by a function tool). */
function isLiveServer(server: MediatedTool): boolean {
  return server.visible && !server.inTools;
}

/**
 * The capability contract a call invokes: a typed tool's (computer use), never a function's. A
 * typed tool a rule replaced with a function is the function now: no contract is claimed.
 */
function contractOf(tool: MediatedTool | undefined): string | undefined {
  if (tool === undefined || tool.type === 'function') return undefined;
  return tool.tool.capability;
}

/** What the agent is told of a hosted call the tool loop stopped before running. */
export function hostedNotRun(name: string): string {
  return `[toolgate] The model called the gateway-hosted tool ${name}, but this request's hosted-tool budget is exhausted: the call was not run.`;
}

/** Builds the response-side judge for one mediated request. */
export function createResponseContext(input: ResponseContextInput): ResponseContext {
  const { bundle, facts } = input;
  const { callable, hidden, functionNames } = derivedFromFrozen(
    CALLABLE,
    input.tools,
    callableTools,
  );
  /** The call-time rules this request's calls are judged by (provider, model, identity). */
  const callRules = bundle.callRules.filter((r) => r.appliesTo(facts));
  const hideRules = bundle.rules.filter(
    (r) => r.mode !== 'observe' && r.rule.action === 'hide' && r.appliesTo(facts),
  );
  /**
   * The hide rule a model-written name falls under, by any of its forms (`server/tool`, `tool`),
   * letter case ignored: a name differing from a hidden one only by case is refused, not
   * guessed to be another tool.
   */
  const hidingRule = (names: ReadonlyArray<string>, declaredBy: DeclaredBy) =>
    hideRules.find((r) =>
      names.some(
        (n) =>
          r.matchesToolIgnoringCase(n, declaredBy) &&
          // A hide rule's `when:` that errors hides (fail closed).
          conditionApplies(r, conditionFor(r, facts, toolFacts(n, declaredBy, declaredBy))),
      ),
    );

  /**
   * Whether a provider-hosted call must not reach the agent although its tool was offered (or
   * was never declared at all): it names a hidden tool or a tool the agent itself executes (a
   * function tool dressed up as a server call), a hide rule covers it, or an MCP connector call
   * (or tool list) names a server the request did not offer. Results carry no name: they follow
   * their call.
   */
  function hostedCallRefused(event: HostedEventInput, toolName: string, isMcp: boolean): boolean {
    // A server's tool list names no tool, but its server must have been offered all the same.
    const unoffered = event.server !== undefined && !mcpServerOf(input.tools, event.server);
    if (event.name === undefined) return isMcp && unoffered;
    if (isMcp) {
      if (event.server === undefined || unoffered) return true;
      const tool = event.name.slice(event.server.length + 1);
      return hidingRule([event.name, tool], 'mcp') !== undefined;
    }
    const names = [...new Set([event.name, toolName])];
    if (names.some((n) => hidden.has(n) || functionNames.has(n))) return true;
    return hidingRule(names, 'provider') !== undefined;
  }

  return {
    surface: input.surface,

    decideCall(id, providerName, rawArguments): ToolCallEvidence {
      const target = callable.get(providerName);
      const name = target?.tool.name ?? providerName;
      const parsed = parseArguments(rawArguments);
      const redacted = redactValue(parsed, bundle.redact);
      const argumentsHash = hashLenient(redacted.value);
      const action = normalizeAction(
        { name, arguments: parsed },
        { identity: facts.identity, metaTools: bundle.metaTools, redact: bundle.redact },
      );
      let policy_state: ToolCallEvidence['policy_state'] = 'allowed';
      let reason: string | undefined;
      let decision: ToolCallEvidence['decision'];
      const names: CallUnderJudgement['names'][number][] = [];
      /** What `args` is to a condition: a meta-tool call's target arguments, unredacted. */
      let conditionArgs: JsonValue = parsed;
      if (!target) {
        policy_state = 'blocked';
        reason = hidden.has(providerName) ? 'hidden' : 'not_declared';
      } else if (target.tool.hostedBy !== undefined) {
        // The gateway's tool loop runs hosted calls; one that reaches the response side is one
        // the loop did not run (its budget ran out): never the agent's to run.
        policy_state = 'blocked';
        reason = 'hosted';
        decision = { outcome: 'deny', message: hostedNotRun(providerName) };
      } else {
        names.push({ name, declaredBy: target.tool.declaredBy, ignoreCase: false });
        const meta = readMetaCall(name, parsed, bundle.metaTools);
        if (meta !== undefined && 'problem' in meta) {
          // A wrapper call whose target cannot be told is never released unjudged.
          policy_state = 'blocked';
          reason = `meta_${meta.problem}`;
        } else if (meta !== undefined) {
          const rule = hidingRule([meta.qualifiedName, meta.tool], 'mcp');
          if (rule) {
            policy_state = 'blocked';
            reason = `rule:${rule.rule.id}`;
          }
          conditionArgs = parseArguments(meta.arguments);
          names.push(
            { name: meta.qualifiedName, declaredBy: 'mcp', ignoreCase: true },
            { name: meta.tool, declaredBy: 'mcp', ignoreCase: true },
          );
        }
      }
      if (policy_state === 'allowed' && target && callRules.length > 0) {
        const judged = judgeCall(
          callRules,
          facts,
          {
            names,
            type: target.type,
            args: conditionArgs,
            actionId: action.action_id,
            actionTool: action.tool,
            redactedArgs: redacted.value,
            argumentsHash,
          },
          input.gate,
        );
        policy_state = judged.policy_state;
        if (judged.reason !== undefined) reason = judged.reason;
        decision = judged.decision;
      }
      // A call to a hidden typed tool is still a call of its contract (withheld).
      const capability = contractOf(target ?? hidden.get(providerName));
      return {
        id,
        name,
        ...(providerName !== name ? { provider_name: providerName } : {}),
        ...(action.via ? { resolved_tool: action.tool } : {}),
        ...(capability !== undefined ? { capability } : {}),
        arguments_hash: argumentsHash,
        action_id: action.action_id,
        policy_state,
        ...(reason ? { reason } : {}),
        ...(decision ? { decision } : {}),
        ...(redacted.redacted.length > 0 ? { redacted_arguments: redacted.redacted } : {}),
      };
    },

    describeHostedEvent(event: HostedEventInput): HostedToolEvidence {
      const isMcp = MCP_EVENTS.has(event.providerType);
      const toolName = isMcp
        ? (event.name ?? 'mcp')
        : (HOSTED_TOOL_NAME[event.providerType] ??
          HOSTED_TOOL_NAME[event.name ?? ''] ??
          event.name ??
          event.providerType);
      const declared = isMcp
        ? mcpServerOf(input.tools, event.server)
        : input.tools.find(
            (t) => t.tool.kind === 'provider' && t.tool.name === toolName && t.type !== 'function',
          );
      const capability =
        declared?.tool.capability ??
        (isMcp ? 'wardwright.mcp_tool.v1' : HOSTED_CAPABILITY[toolName]) ??
        'unknown';
      const fidelity: Fidelity = declared ? input.fidelityOf(declared) : 'opaque';
      let policy_state: HostedToolEvidence['policy_state'] = 'opaque';
      if (declared) {
        const live = isMcp ? isLiveServer(declared) : declared.visible;
        policy_state = live ? 'allowed' : 'blocked';
      }
      if (policy_state !== 'blocked' && hostedCallRefused(event, toolName, isMcp)) {
        policy_state = 'blocked';
      }
      return {
        ...(event.id !== undefined ? { id: event.id } : {}),
        capability,
        provider_type: event.name ? `${event.providerType}:${event.name}` : event.providerType,
        name: toolName,
        fidelity,
        ...(event.input !== undefined ? { input_hash: hashLenient(event.input as JsonValue) } : {}),
        policy_state,
        ...(event.sources ? { sources: event.sources } : {}),
        ...(event.error !== undefined ? { error: event.error } : {}),
        ...(event.container !== undefined ? { container: event.container } : {}),
        ...(isMcp && event.name === undefined && event.server !== undefined
          ? { server: event.server }
          : {}),
      };
    },
  };
}
