import type { JsonObject, JsonValue } from '../json/json-value.ts';
import type { Surface } from '../resources/vocabulary.ts';
import type { CompiledRule, RequestFacts } from './compile-bundle.ts';
import { RESTRICTING_ACTIONS } from './identity-match.ts';
import type { RequestTool } from './request-tool.ts';
import {
  bindConditionVars,
  type ConditionBindings,
  type ConditionOutcome,
  type ConditionVars,
  type HistoryCall,
  MAX_HISTORY_CALLS,
  memoized,
  type ToolFacts,
} from './rule-condition.ts';

/**
 * Per rule with a `when:`, its condition's outcome for each tool of the request (by position).
 * Computed before the catalog memo is consulted: the outcome of mediation depends on them, so
 * they are part of the memo's key.
 */
export type ConditionOutcomes = ReadonlyMap<CompiledRule, ReadonlyArray<ConditionOutcome>>;

/** The tools called earlier in the conversation, read from the request's own messages. */
export function readHistory(surface: Surface, body: JsonObject): HistoryCall[] {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const calls: HistoryCall[] = [];
  for (const message of messages) {
    if (!isObject(message)) continue;
    if (surface === 'anthropic-messages') {
      const content = Array.isArray(message.content) ? message.content : [];
      for (const block of content) {
        if (isObject(block) && block.type === 'tool_use' && typeof block.name === 'string') {
          calls.push({ name: block.name, args: block.input ?? null });
        }
      }
      continue;
    }
    const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
    for (const call of toolCalls) {
      const fn = isObject(call) ? call.function : undefined;
      if (isObject(fn) && typeof fn.name === 'string') calls.push(openAICall(fn));
    }
    const legacy = message.function_call;
    if (isObject(legacy) && typeof legacy.name === 'string') calls.push(openAICall(legacy));
  }
  return calls.slice(-MAX_HISTORY_CALLS);
}

function openAICall(fn: JsonObject): HistoryCall {
  const text = fn.arguments;
  let args: unknown = text ?? null;
  if (typeof text === 'string') {
    try {
      args = JSON.parse(text);
    } catch {
      // Not JSON: conditions see the string as sent.
    }
  }
  return { name: fn.name as string, args };
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Evaluates every `when:` of the applicable rules for every tool. */
export function evaluateConditions(
  rules: ReadonlyArray<CompiledRule>,
  tools: ReadonlyArray<RequestTool>,
  facts: RequestFacts,
): ConditionOutcomes {
  const outcomes = new Map<CompiledRule, ConditionOutcome[]>();
  // Variables bound once per tool, shared by every rule: its CEL values are made once.
  let boundPerTool: ReadonlyArray<ConditionBindings> | undefined;
  for (const rule of rules) {
    const condition = rule.condition;
    if (condition === undefined) continue;
    boundPerTool ??= tools.map((tool) =>
      bindConditionVars(conditionVars(facts, toolFacts(tool.name, tool.declaredBy, tool.type))),
    );
    outcomes.set(
      rule,
      boundPerTool.map((bound) => condition.evaluateBound(bound)),
    );
  }
  return outcomes;
}

export function toolFacts(name: string, declaredBy: string, type: string): ToolFacts {
  return { name, declared_by: declaredBy, type };
}

export function conditionVars(facts: RequestFacts, tool: ToolFacts): ConditionVars {
  // Assigned, not spread: this runs per tool and per call (see bindings in rule-condition.ts).
  const vars: ConditionVars = { tool, identity: facts.identity, request: requestVars(facts) };
  if (facts.history !== undefined) vars.history = facts.history;
  return vars;
}

/** One `request` object per request, so its CEL value is made once (rule-condition.ts). */
const REQUEST_VARS = Symbol('toolgate.cel.request');

function requestVars(facts: RequestFacts): { surface: string; model: string } {
  return memoized(facts, REQUEST_VARS, () => ({ surface: facts.surface, model: facts.model }));
}

/**
 * Whether a rule applies given its condition's outcome: a condition that errored applies a
 * restricting rule (fail closed) and no other.
 */
export function conditionApplies(rule: CompiledRule, outcome: ConditionOutcome | undefined) {
  if (outcome === undefined || outcome === true) return true;
  return outcome === 'error' && RESTRICTING_ACTIONS[rule.rule.action];
}

/** The condition's outcome for a tool the model named (response side), or undefined. */
export function conditionFor(
  rule: CompiledRule,
  facts: RequestFacts,
  tool: ToolFacts,
): ConditionOutcome | undefined {
  return rule.condition?.evaluate(conditionVars(facts, tool));
}

/** The memo-key part: per conditional rule, one letter per tool. */
export function outcomesKey(outcomes: ConditionOutcomes): string {
  let key = '';
  for (const [rule, list] of outcomes) {
    key += `|${rule.key}=${list.map((o) => (o === 'error' ? 'E' : o ? 'T' : 'F')).join('')}`;
  }
  return key;
}
