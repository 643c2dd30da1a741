import { ValidationError } from '../errors.ts';
import { knownJsonText, rememberJsonText } from '../json/json-text.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/json-value.ts';
import { nulPath } from '../json/well-formed-text.ts';
import { NUL_PROBLEM, RECEIPT_LIMITS, receiptTextProblem } from '../receipt/receipt-limits.ts';
import type {
  PolicyRevisionRef,
  ToolDescriptor,
  ToolMediationBlock,
  ToolRecord,
} from '../receipt/receipt-schema.ts';
import type { ToolDeclarationInput } from '../resources/mediation-policy.ts';
import { fidelityFor } from '../resources/provider-profile.ts';
import type { Fidelity, MediationMode, PolicyState, Surface } from '../resources/vocabulary.ts';
import { MediationMode as MediationModes } from '../resources/vocabulary.ts';
import type { ResponseContext } from '../response/response-context.ts';
import type { CallGate } from './call-gate.ts';
import type { CompiledBundle, CompiledRule, RequestFacts } from './compile-bundle.ts';
import {
  type ConditionOutcomes,
  evaluateConditions,
  outcomesKey,
  readHistory,
} from './condition-outcomes.ts';
import {
  addToolInfo,
  bundleHosts,
  type HostedPlan,
  hostedPlan,
  offeredHostedTools,
} from './hosted-tools.ts';
import type { RuleIdentity } from './identity-match.ts';
import type { KnownDeclaration, MediationMemo } from './mediation-memo.ts';
import { isMetaTool } from './meta-tools.ts';
import { type CatalogOutcome, isListed, writeRequest } from './provider-request.ts';
import { hostedTools, type RequestTool, type SurfaceAdapter } from './request-tool.ts';
import { createResponseContext, type MediatedTool } from './response-decisions.ts';
import {
  type AppliedRuleWithMode,
  type Entry,
  finalizeProviderNames,
  observeRules,
  type Rewriter,
  runRules,
  setDeclaration,
} from './rule-application.ts';
import { anthropicMessagesAdapter } from './surfaces/anthropic-messages.ts';
import { geminiAdapter } from './surfaces/gemini.ts';
import { mcpToolsAdapterFor } from './surfaces/mcp-tools.ts';
import { openAIChatAdapter } from './surfaces/openai-chat.ts';
import { openAIFunctionsAdapter } from './surfaces/openai-functions.ts';
import { openAIResponsesAdapter, RESPONSES_KIND } from './surfaces/openai-responses.ts';
import { readToolResults, type ToolResults } from './tool-results.ts';

export interface MediationInput {
  surface: Surface;
  /** The agent's request body, parsed. Never mutated. */
  body: unknown;
  /**
   * The identity bound to the request (rules may select on it; action ids include it). Only its
   * `trusted` fields are relied on; absent, the caller is anonymous and unproven.
   */
  identity?: RuleIdentity;
  /** Gateway-hosted tools to offer the provider (declared_by wardwright; they win collisions). */
  hostedTools?: ReadonlyArray<ToolDeclarationInput>;
  /** Approvals and rate-limit buckets for call-time rules (call-gate.ts). */
  gate?: CallGate;
  /**
   * The model and stream flag of a surface that carries them outside the body: Gemini names
   * both in the URL path (`models/{model}:streamGenerateContent`). Absent: read from the body.
   */
  target?: { model: string; stream: boolean };
}

export type { CatalogOutcome } from './provider-request.ts';

export interface MediationResult {
  /** The request to send to the provider; the input object itself when nothing changed. */
  body: JsonObject;
  changed: boolean;
  model: string;
  stream: boolean;
  /** The receipt's `wardwright_tool_mediation` block; absent when mediation changed nothing. */
  mediation?: ToolMediationBlock;
  /** The per-tool model for every tool of the request. */
  tools: ToolRecord[];
  /** Every declaration the receipt references, by schema hash (for the schema store). */
  schemas: ReadonlyMap<string, JsonObject>;
  policies: ReadonlyArray<PolicyRevisionRef>;
  /** What the response side needs: name mapping, blocking, hosted-event mapping. */
  response: ResponseContext;
  /**
   * The same response side judging calls with another call gate (approvals, rate limits are
   * per request): lets a caller reuse one mediation of an unchanged tool list for many calls.
   */
  responseFor(gate: CallGate | undefined): ResponseContext;
  /** Results of earlier calls the agent sent back since the last assistant turn (tool-results.ts). */
  toolResults: ToolResults;
  /**
   * The gateway-hosted tools the provider is offered (`tool_info`, HostedTools) and the budget
   * of the tool loop that runs them (docs/hosted-tools.md); absent when there are none.
   */
  hosted?: HostedPlan;
}

const ADAPTERS: Record<Exclude<Surface, 'mcp'>, SurfaceAdapter> = {
  'openai-chat': openAIChatAdapter,
  'anthropic-messages': anthropicMessagesAdapter,
  'openai-responses': openAIResponsesAdapter,
  gemini: geminiAdapter,
};

/**
 * The adapter for the request's shape: OpenAI's legacy `functions` has its own, and an MCP
 * tool list (surfaces/mcp-tools.ts) one per server.
 */
function adapterFor(surface: Surface, body: JsonObject): SurfaceAdapter {
  if (surface === 'mcp') return mcpToolsAdapterFor(body);
  if (surface === 'openai-chat' && body.functions !== undefined && body.functions !== null) {
    return openAIFunctionsAdapter;
  }
  return ADAPTERS[surface];
}
const REQUEST_KIND: Record<Surface, string> = {
  'openai-chat': 'ChatCompletionRequest',
  'anthropic-messages': 'MessagesRequest',
  gemini: 'GenerateContentRequest',
  mcp: 'McpToolList',
  'openai-responses': RESPONSES_KIND,
};
const MODE_RANK = new Map(MediationModes.options.map((mode, rank) => [mode, rank]));

/**
 * Rewrites the tools of one provider request according to the bundle (SPEC §2). Pure and
 * deterministic: the same bundle and input give byte-identical output. Throws only
 * {@link ValidationError} (with field paths) for requests it cannot read.
 */
export function mediateRequest(bundle: CompiledBundle, input: MediationInput): MediationResult {
  const kind = REQUEST_KIND[input.surface];
  const body = input.body;
  if (!isJsonObject(body)) {
    throw new ValidationError(kind, [{ field: '(root)', message: 'must be a JSON object' }]);
  }
  const adapter = adapterFor(input.surface, body);
  const model = input.target?.model ?? body.model;
  if (input.target !== undefined && !namesTarget(body.model, input.target.model)) {
    // The provider could route on a body `model` other than the path's, past `match.model`.
    throw new ValidationError(kind, [
      { field: 'model', message: 'must be the model named in the URL path, or left out' },
    ]);
  }
  if (typeof model !== 'string' || model === '') {
    throw new ValidationError(kind, [{ field: 'model', message: 'is required' }]);
  }
  const modelProblem = receiptTextProblem(model, RECEIPT_LIMITS.model);
  if (modelProblem !== undefined) {
    // The receipt records the model: one it could not hold is refused before the provider.
    throw new ValidationError(kind, [{ field: 'model', message: modelProblem }]);
  }
  const facts: RequestFacts = { surface: input.surface, model, identity: input.identity ?? {} };
  const hosts = bundleHosts(bundle);
  const applicable = bundle.rules.filter((rule) => rule.appliesTo(facts));
  if (
    bundle.callRulesReadHistory ||
    applicable.some((rule) => rule.condition?.readsHistory === true) ||
    (hosts && bundle.hostRules.some((rule) => rule.condition?.readsHistory === true))
  ) {
    facts.history = adapter.readHistory?.(body) ?? readHistory(input.surface, body);
  }
  const declared = [...adapter.readTools(body), ...hostedTools(adapter, input.hostedTools ?? [])];
  const tools = hosts
    ? [...declared, ...offeredHostedTools(bundle, facts, adapter, input.hostedTools?.length ?? 0)]
    : declared;
  const outcomes = evaluateConditions(applicable, tools, facts);
  const catalog = memoizedCatalog(bundle, adapter, body, tools, applicable, outcomes, kind);
  const responseFor = (gate: CallGate | undefined) =>
    createResponseContext({
      surface: input.surface,
      ...(gate ? { gate } : {}),
      tools: catalog.entries,
      bundle,
      facts,
      fidelityOf: (tool) => catalog.fidelity.get(tool) ?? 'opaque',
    });
  const hosted = hosts ? hostedPlan(catalog.entries as ReadonlyArray<Entry>, bundle) : undefined;
  return {
    ...(hosted ? { hosted } : {}),
    body: catalog.changed ? writeRequest(body, catalog, adapter) : body,
    changed: catalog.changed,
    model,
    stream: input.target?.stream ?? body.stream === true,
    ...(catalog.mediation ? { mediation: catalog.mediation } : {}),
    tools: catalog.tools,
    schemas: catalog.schemas,
    policies: bundle.policies,
    response: responseFor(input.gate),
    responseFor,
    toolResults: adapter.readToolResults
      ? adapter.readToolResults(bundle, body, facts.identity)
      : readToolResults(bundle, input.surface, body, facts.identity),
  };
}

/** Whether a body's `model` is absent or names the target's model (`m` or `models/m`). */
function namesTarget(bodyModel: JsonValue | undefined, model: string): boolean {
  return bodyModel === undefined || bodyModel === model || bodyModel === `models/${model}`;
}

/**
 * The catalog outcome from the bundle's memo, keyed by the catalog's exact JSON text and the
 * rules that apply. A miss computes it on frozen copies of the declarations, so the memo never
 * holds (or freezes) the caller's objects. The memoized outcome's provider declarations get
 * their text remembered, so serializing the provider request reuses it.
 */
function memoizedCatalog(
  bundle: CompiledBundle,
  adapter: SurfaceAdapter,
  body: JsonObject,
  tools: ReadonlyArray<RequestTool>,
  applicable: ReadonlyArray<CompiledRule>,
  outcomes: ConditionOutcomes,
  kind: string,
): CatalogOutcome {
  const uncached = () => mediateCatalog(bundle, adapter, tools, applicable, outcomes, kind);
  if (!bundle.memo.enabled) return uncached();
  let catalog: { text: string; list?: object };
  try {
    catalog = catalogOf(body[adapter.listKey], tools);
  } catch {
    // Not JSON at all (a cycle): let the uncached path report it as a validation error.
    return uncached();
  }
  // The conditions' outcomes are part of the key: they depend on more than the catalog.
  const variant = `${adapter.shape}|${tools.map((t) => t.origin).join(',')}|${applicable.map((r) => r.key).join('\u0001')}${outcomesKey(outcomes)}`;
  const outcome = bundle.memo.catalog(catalog, variant, () => {
    const copies = JSON.parse(catalog.text) as JsonObject[];
    const owned = tools.map((tool, i) => ({ ...tool, raw: copies[i] as JsonObject }));
    return mediateCatalog(bundle, adapter, owned, applicable, outcomes, kind);
  });
  rememberJsonText(outcome.declarations);
  return outcome;
}

/**
 * The tools' declarations as the memo's key: their `JSON.stringify` text, and the frozen array
 * it is the text of, if any. When they are exactly the elements of the request's `tools` (or
 * `functions`) array and that array's text is known (a list {@link RequestParser} has seen
 * before), that text is it: the array's serialization is its elements' serializations.
 */
function catalogOf(
  list: JsonValue | undefined,
  tools: ReadonlyArray<RequestTool>,
): { text: string; list?: object } {
  if (
    Array.isArray(list) &&
    list.length === tools.length &&
    tools.every((tool, i) => tool.raw === list[i])
  ) {
    const text = knownJsonText(list);
    if (text !== undefined) return { text, list };
  }
  return { text: JSON.stringify(tools.map((t) => t.raw)) };
}

function mediateCatalog(
  bundle: CompiledBundle,
  adapter: SurfaceAdapter,
  tools: ReadonlyArray<RequestTool>,
  applicable: ReadonlyArray<CompiledRule>,
  outcomes: ConditionOutcomes,
  kind: string,
): CatalogOutcome {
  const { surface } = adapter;
  const cache = bundle.memo;
  const known = tools.map((tool, index) => identifyOriginal(tool, index, kind, cache));
  const fresh = () => tools.map((tool, i) => newEntry(tool, known[i] as KnownDeclaration));
  const rewrites: Rewriter = (entry, ruleKey, build) =>
    setDeclaration(entry, cache.rewrite(`${adapter.shape}\u0000${ruleKey}`, entry.key, build));

  const enforced = applicable.filter((rule) => rule.mode !== 'observe');
  const entries = fresh();
  const errors = new Set<string>();
  const applied = runRules(entries, enforced, adapter, rewrites, outcomes, errors);
  addToolInfo(
    entries,
    adapter,
    bundle.hostedBudget,
    (tool) => identifyOriginal(tool, tool.index, kind, cache),
    kind,
  );
  finalizeProviderNames(entries, adapter, rewrites);
  const observed = applicable.some((rule) => rule.mode === 'observe')
    ? observeRules(fresh(), entries, applicable, adapter, rewrites, outcomes, errors)
    : [];

  const changed = entries.some((e) =>
    // A gateway-hosted tool changes the request by being offered at all.
    e.tool.origin === 'hosted' ? e.visible : !e.visible || e.hash !== e.originalHash,
  );
  const profile = bundle.profileFor(surface);
  const fidelity = new Map<MediatedTool, Fidelity>(entries.map((e) => [e, fidelityOf(e, profile)]));

  const ruleRecords = (list: AppliedRuleWithMode[]) => list.map(({ mode: _m, ...r }) => r);
  let mediation: ToolMediationBlock | undefined;
  if (changed || observed.length > 0 || errors.size > 0) {
    mediation = {
      schema: 'wardwright.tool_mediation.v1',
      mode: blockMode(applied, observed, enforced),
      applied_rules: ruleRecords(applied),
      original_tools: entries.map((e) => descriptor(e, e.tool.name, e.tool.type, e.originalHash)),
      provider_visible_tools: entries
        .filter((e) => e.visible)
        .map((e) => descriptor(e, e.providerName, e.type, e.hash)),
    };
    if (observed.length > 0) mediation.observed_rules = ruleRecords(observed);
    // A `when:` that failed at run time: the rule applied if restricting, else not.
    if (errors.size > 0) mediation.annotations = [...errors].map((id) => `rule_error:${id}`);
  }

  const schemas = new Map<string, JsonObject>();
  for (const e of entries) {
    schemas.set(e.originalHash, e.tool.raw);
    if (e.visible) schemas.set(e.hash, e.decl);
  }
  return {
    entries,
    declarations: entries.filter((e) => e.inTools && e.visible).map((e) => e.decl),
    changed,
    ...(mediation ? { mediation } : {}),
    tools: entries.map((e) => toolRecord(e, fidelity.get(e) as Fidelity, bundle)),
    schemas,
    fidelity,
  };
}

function identifyOriginal(
  tool: RequestTool,
  index: number,
  kind: string,
  cache: MediationMemo,
): KnownDeclaration {
  const known = cache.identify(tool.raw);
  if (known !== undefined) return known;
  const field =
    tool.path ??
    (isListed(tool)
      ? `${tool.origin}[${index}]`
      : tool.origin === 'native_tools'
        ? `tools[${tool.index}]`
        : tool.origin);
  const nul = nulPath(tool.raw);
  if (nul !== undefined) {
    throw new ValidationError(kind, [{ field: `${field}.${nul}`, message: NUL_PROBLEM }]);
  }
  throw new ValidationError(kind, [
    { field, message: 'must be valid I-JSON (no lone surrogates or non-finite numbers)' },
  ]);
}

/** The agent's own callable declarations: `tools`, or legacy `functions`. */
function newEntry(tool: RequestTool, known: KnownDeclaration): Entry {
  return {
    tool,
    kind: tool.kind,
    type: tool.type,
    decl: tool.raw,
    key: known.key,
    hash: known.hash,
    originalHash: known.hash,
    state: 'allowed',
    visible: true,
    inTools: isListed(tool) || tool.origin === 'hosted',
    providerName: tool.exposedName ?? tool.name,
  };
}

function blockMode(
  applied: AppliedRuleWithMode[],
  observed: AppliedRuleWithMode[],
  enforced: ReadonlyArray<CompiledRule>,
): MediationMode {
  const modes = applied.length > 0 ? applied.map((r) => r.mode) : enforced.map((r) => r.mode);
  if (modes.length === 0) return observed.length > 0 ? 'observe' : 'patch';
  return modes.reduce((a, b) => ((MODE_RANK.get(b) ?? 0) > (MODE_RANK.get(a) ?? 0) ? b : a));
}

function descriptor(entry: Entry, name: string, type: string, hash: string): ToolDescriptor {
  return { declared_by: entry.tool.declaredBy, name, type, schema_hash: hash };
}

function fidelityOf(
  entry: Entry,
  profile: Parameters<typeof fidelityFor>[0] | undefined,
): Fidelity {
  const { tool } = entry;
  if (tool.declaredBy === 'wardwright') return 'emulated';
  if (entry.state === 'replaced' || tool.kind === 'function') return 'pass_through';
  if (tool.capability) return profile ? fidelityFor(profile, tool.capability) : 'opaque';
  return tool.executedBy === 'agent' ? 'pass_through' : 'opaque';
}

function toolRecord(entry: Entry, fidelity: Fidelity, bundle: CompiledBundle): ToolRecord {
  const { tool } = entry;
  let state: PolicyState = entry.state;
  if (state === 'allowed' && isMetaTool(tool.name, bundle.metaTools)) state = 'deferred';
  else if (state === 'allowed' && fidelity === 'opaque' && tool.executedBy !== 'agent') {
    state = 'opaque';
  }
  // Built field by field (no conditional spreads): this runs for every tool of every request.
  const record: ToolRecord = {
    name: tool.name,
    type: entry.type,
    declared_by: tool.declaredBy,
    executed_by: tool.executedBy,
    visible_to_provider: entry.visible,
    visible_to_agent:
      entry.visible &&
      (tool.executedBy !== 'wardwright' ||
        (tool.hostedBy !== undefined && bundle.hostedBudget.visibleToAgent)),
    policy_state: state,
    fidelity,
    schema_hash: entry.visible ? entry.hash : entry.originalHash,
  };
  if (entry.visible && entry.providerName !== tool.name) record.provider_name = entry.providerName;
  if (tool.capability) record.capability = tool.capability;
  return record;
}
