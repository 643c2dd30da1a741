import type { Attributes, Span } from '@opentelemetry/api';
import {
  boundedText,
  type MediationResult,
  type ReceiptIdentity,
  type ResponseEvidence,
  scrubSecrets,
  type ToolCallEvidence,
} from '@toolgate/core';
import { GEN_AI } from './gen-ai.ts';

/**
 * What the gateway decided, as span attributes and events: each tool call with its policy state
 * and call-time decision (an event), the rules that changed the tool list, hosted-tool events. Names and
 * ids come from agents and providers: they are bounded and scrubbed of anything shaped like a
 * credential, as in receipts. Arguments, results and messages are never recorded.
 */
export const TOOL_CALL_EVENT = 'toolgate.tool_call';
export const HOSTED_TOOL_EVENT = 'toolgate.hosted_tool';

/** Most events of one kind on a span (a response may hold many calls, a list many rules). */
const MAX_EVENTS = 128;
/** Most names in one array attribute. */
const MAX_NAMES = 64;

/** A name or id from outside, fit for a span. */
export function safeText(text: string): string {
  return scrubSecrets(boundedText(text, 256));
}

export function toolCallAttributes(call: ToolCallEvidence): Attributes {
  const { decision } = call;
  return defined({
    [GEN_AI.toolName]: safeText(call.name),
    [GEN_AI.toolCallId]: safeText(call.id),
    'toolgate.tool.provider_name': call.provider_name && safeText(call.provider_name),
    'toolgate.tool.resolved': call.resolved_tool && safeText(call.resolved_tool),
    'toolgate.action_id': call.action_id,
    'toolgate.policy_state': call.policy_state,
    'toolgate.reason': call.reason && safeText(call.reason),
    'toolgate.decision.outcome': decision?.outcome,
    'toolgate.decision.rule': decision?.rule,
    'toolgate.decision.policy': decision?.policy,
    'toolgate.decision.approval': decision?.approval,
    'toolgate.decision.observed.outcome': decision?.observed?.outcome,
    'toolgate.decision.observed.rule': decision?.observed?.rule,
  });
}

/** The response side: every tool call (and hosted-tool event) as the policy judged it. */
export function addEvidenceEvents(span: Span, evidence: ResponseEvidence): void {
  for (const call of evidence.tool_calls.slice(0, MAX_EVENTS)) {
    span.addEvent(TOOL_CALL_EVENT, toolCallAttributes(call));
  }
  for (const event of evidence.hosted_tool_events.slice(0, MAX_EVENTS)) {
    span.addEvent(
      HOSTED_TOOL_EVENT,
      defined({
        [GEN_AI.toolName]: safeText(event.name),
        [GEN_AI.toolCallId]: event.id && safeText(event.id),
        'toolgate.capability': safeText(event.capability),
        'toolgate.tool.provider_type': safeText(event.provider_type),
        'toolgate.policy_state': event.policy_state,
      }),
    );
  }
  const blocked = evidence.tool_calls.filter((call) => call.policy_state !== 'allowed').length;
  span.setAttributes({
    'toolgate.tool_calls': evidence.tool_calls.length,
    'toolgate.tool_calls.withheld': blocked,
  });
}

/**
 * The request side: how mediation changed the tool list, which rules did it (observe-mode rules
 * apart) and which tools the provider was not shown. Attributes rather than an event per rule:
 * one array costs what one event does, and a list may hold dozens of rules.
 */
export function mediationAttributes(mediation: MediationResult): Attributes {
  const hidden: string[] = [];
  let visible = 0;
  for (const tool of mediation.tools) {
    if (tool.visible_to_provider) visible++;
    else if (hidden.length < MAX_NAMES) hidden.push(safeText(tool.name));
  }
  const block = mediation.mediation;
  return defined({
    'toolgate.mediation.changed': mediation.changed,
    'toolgate.mediation.mode': block?.mode,
    'toolgate.tools': mediation.tools.length,
    'toolgate.tools.visible': visible,
    'toolgate.tools.hidden': hidden.length > 0 ? hidden : undefined,
    'toolgate.policies': mediation.policies.map((policy) => policy.name),
    'toolgate.rules.applied': ruleIds(block?.applied_rules),
    'toolgate.rules.observed': ruleIds(block?.observed_rules),
  });
}

/** `<policy>/<rule>` of each rule, or undefined when there is none. */
function ruleIds(rules: ReadonlyArray<{ id: string; policy?: string }> | undefined) {
  if (rules === undefined || rules.length === 0) return undefined;
  return rules
    .slice(0, MAX_NAMES)
    .map((rule) => (rule.policy ? `${rule.policy}/${rule.id}` : rule.id));
}

/** Who the request was bound to: the identity's names and how it was proven, never a token. */
export function identityAttributes(identity: ReceiptIdentity): Attributes {
  return defined({
    'toolgate.identity.binding': identity.binding,
    'toolgate.identity.service': identity.service && safeText(identity.service),
    'toolgate.identity.human': identity.human && safeText(identity.human),
  });
}

/** Attributes without the keys whose value is absent. */
export function defined(values: Record<string, Attributes[string] | undefined | ''>): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && value !== '') out[key] = value;
  }
  return out;
}
