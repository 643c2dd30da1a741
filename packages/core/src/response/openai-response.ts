import { isJsonObject, type JsonObject } from '../json/json-value.ts';
import type {
  HostedToolEvidence,
  ResponseEvidence,
  ToolCallEvidence,
} from '../receipt/receipt-schema.ts';
import type { ResponseContext } from './response-context.ts';
import { withExplanations, withheldExplanation } from './withheld-explanation.ts';

/** What enforcement returns: the body to send to the agent and what the receipt records. */
export interface EnforcedResponse {
  body: unknown;
  evidence: ResponseEvidence;
}

/** The outcome of judging one tool call: `call` is the rewritten call, or null when blocked. */
export interface OpenAICallDecision {
  evidence: ToolCallEvidence;
  call: JsonObject | null;
}

/**
 * Judges one Chat Completions tool call (`{id, type: 'function', function: {name, arguments}}`
 * or `{id, type: 'custom', custom: {name, input}}`) with `ctx.decideCall` and rewrites it: the
 * provider's name is replaced by the agent's, or the call is dropped (`call: null`) when blocked.
 * Returns undefined for a call without a name (nothing an agent could dispatch). Shared by the
 * non-streaming enforcer and the stream mediator so both decide identically.
 */
export function decideOpenAIToolCall(
  call: JsonObject,
  ctx: ResponseContext,
): OpenAICallDecision | undefined {
  const kind = call.type === 'custom' ? 'custom' : 'function';
  const fn = call[kind];
  if (!isJsonObject(fn) || typeof fn.name !== 'string') return undefined;
  const raw = kind === 'custom' ? fn.input : fn.arguments;
  const id = typeof call.id === 'string' ? call.id : '';
  const evidence = ctx.decideCall(id, fn.name, raw ?? '');
  if (evidence.policy_state !== 'allowed') return { evidence, call: null };
  if (evidence.name === fn.name) return { evidence, call };
  return { evidence, call: { ...call, [kind]: { ...fn, name: evidence.name } } };
}

/**
 * Judges a legacy `function_call` (`{name, arguments}`, no id: `decideCall` gets `''`).
 * Returns the rewritten object, or null when blocked; undefined when it has no name.
 */
export function decideOpenAIFunctionCall(
  fn: JsonObject,
  ctx: ResponseContext,
): { evidence: ToolCallEvidence; functionCall: JsonObject | null } | undefined {
  const decision = decideOpenAIToolCall({ type: 'function', function: fn }, ctx);
  if (decision === undefined) return undefined;
  const rewritten = decision.call?.function;
  return {
    evidence: decision.evidence,
    functionCall: isJsonObject(rewritten) ? rewritten : null,
  };
}

/** The finish reasons that promise the agent a tool call. */
export function isToolFinishReason(reason: unknown): boolean {
  return reason === 'tool_calls' || reason === 'function_call';
}

/** The `evidence.finish_reason` value recorded when enforcement rewrote a finish reason. */
export function finishReasonChange(before: string, after: string): string {
  return `${before}->${after}`;
}

/**
 * Reports the `url_citation` annotations in `annotations` as one hosted `web_search` event
 * (URLs aggregated, de-duplicated, in order). Returns undefined when there are none. When the
 * evidence is `blocked`, `annotations` is the list without the citations; otherwise it is the
 * input array itself.
 */
export function describeUrlCitations(
  annotations: unknown,
  ctx: ResponseContext,
): { evidence: HostedToolEvidence; annotations: unknown[] } | undefined {
  if (!Array.isArray(annotations)) return undefined;
  const sources: string[] = [];
  let found = false;
  for (const annotation of annotations) {
    if (!isUrlCitation(annotation)) continue;
    found = true;
    const citation = annotation.url_citation;
    const url = isJsonObject(citation) ? citation.url : undefined;
    if (typeof url === 'string' && !sources.includes(url)) sources.push(url);
  }
  if (!found) return undefined;
  const evidence = ctx.describeHostedEvent({
    providerType: 'url_citation',
    name: 'web_search',
    sources,
  });
  if (evidence.policy_state !== 'blocked') return { evidence, annotations };
  return { evidence, annotations: annotations.filter((a) => !isUrlCitation(a)) };
}

function isUrlCitation(value: unknown): value is JsonObject {
  return isJsonObject(value) && value.type === 'url_citation';
}

/**
 * Enforces the policy on a non-streaming Chat Completions response body.
 *
 * For every `choices[i].message.tool_calls[j]` (and legacy `message.function_call`):
 * `ctx.decideCall`; allowed calls get the agent's name back, blocked calls are removed. A choice
 * left without any call loses `tool_calls`, gets `content: ''` instead of null, and a
 * `finish_reason` of `tool_calls`/`function_call` becomes `stop` (recorded as
 * `evidence.finish_reason = 'tool_calls->stop'`). `url_citation` annotations are reported as one
 * hosted `web_search` event per choice, and removed when that event is blocked.
 *
 * Never mutates `body` and never throws on odd shapes: anything that is not a response with a
 * `choices` array comes back as is, with empty evidence. Unchanged parts are shared.
 */
export function enforceOpenAIResponse(body: unknown, ctx: ResponseContext): EnforcedResponse {
  const evidence: ResponseEvidence = { tool_calls: [], hosted_tool_events: [] };
  if (!isJsonObject(body) || !Array.isArray(body.choices)) return { body, evidence };
  let changed = false;
  const choices = body.choices.map((choice) => {
    const next = enforceChoice(choice, ctx, evidence);
    if (next !== choice) changed = true;
    return next;
  });
  return { body: changed ? { ...body, choices } : body, evidence };
}

function enforceChoice(choice: unknown, ctx: ResponseContext, evidence: ResponseEvidence) {
  if (!isJsonObject(choice) || !isJsonObject(choice.message)) return choice;
  const message = choice.message;
  let next: JsonObject = message;
  let removed = false;
  const explanations: string[] = [];
  const explain = (evidence: ToolCallEvidence) => {
    const text = withheldExplanation(evidence);
    if (text !== undefined) explanations.push(text);
  };

  if (Array.isArray(message.tool_calls)) {
    const calls: unknown[] = [];
    let callsChanged = false;
    for (const call of message.tool_calls) {
      const decision = isJsonObject(call) ? decideOpenAIToolCall(call, ctx) : undefined;
      if (decision === undefined) {
        calls.push(call);
        continue;
      }
      evidence.tool_calls.push(decision.evidence);
      explain(decision.evidence);
      if (decision.call !== call) callsChanged = true;
      if (decision.call === null) removed = true;
      else calls.push(decision.call);
    }
    if (callsChanged) {
      next = { ...message };
      if (calls.length > 0) next.tool_calls = calls as JsonObject[];
      else delete next.tool_calls;
    }
  }

  if (isJsonObject(message.function_call)) {
    const decision = decideOpenAIFunctionCall(message.function_call, ctx);
    if (decision !== undefined) {
      evidence.tool_calls.push(decision.evidence);
      explain(decision.evidence);
      if (decision.functionCall !== message.function_call) {
        if (next === message) next = { ...message };
        if (decision.functionCall === null) {
          removed = true;
          delete next.function_call;
        } else {
          next.function_call = decision.functionCall;
        }
      }
    }
  }

  const citations = describeUrlCitations(message.annotations, ctx);
  if (citations !== undefined) {
    evidence.hosted_tool_events.push(citations.evidence);
    if (citations.annotations !== message.annotations) {
      if (next === message) next = { ...message };
      next.annotations = citations.annotations as JsonObject[];
    }
  }

  const callsLeft =
    (Array.isArray(next.tool_calls) && next.tool_calls.length > 0) ||
    isJsonObject(next.function_call);
  if (explanations.length > 0) {
    // The agent is told why, in the turn's text, where the call would have been.
    if (next === message) next = { ...message };
    next.content = withExplanations(next.content, explanations) as JsonObject['content'];
  } else if (removed && !callsLeft && next.content === null) {
    if (next === message) next = { ...message };
    next.content = '';
  }
  const rewriteFinish = !callsLeft && isToolFinishReason(choice.finish_reason);
  if (next === message && !rewriteFinish) return choice;
  const out: JsonObject = { ...choice, message: next };
  if (rewriteFinish) {
    evidence.finish_reason = finishReasonChange(choice.finish_reason as string, 'stop');
    out.finish_reason = 'stop';
  }
  return out;
}
