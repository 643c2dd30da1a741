import { isJsonObject, type JsonObject, type JsonValue } from '../json/json-value.ts';
import type { ResponseEvidence, ToolCallEvidence } from '../receipt/receipt-schema.ts';
import { describeGrounding, describeUrlContext, hostedPart } from './gemini-evidence.ts';
import type { EnforcedResponse } from './openai-response.ts';
import type { ResponseContext } from './response-context.ts';
import { withheldExplanation } from './withheld-explanation.ts';

/**
 * What enforcement remembers across the chunks of one Gemini response (a stream's chunks are
 * each a whole `GenerateContentResponse`): the built-in calls it withheld, so that their
 * results, arriving later, are withheld too.
 */
export interface GeminiResponseState {
  /** Ids of withheld `executableCode` / `toolCall` parts. */
  readonly blockedIds: Set<string>;
  /** Per part kind (`executableCode`, `toolCall`), whether the last id-less call was withheld. */
  readonly blockedUnnamed: Map<string, boolean>;
}

export function newGeminiResponseState(): GeminiResponseState {
  return { blockedIds: new Set(), blockedUnnamed: new Map() };
}

/** The result part kind → the call part kind it answers. */
const CALL_OF_RESULT: Readonly<Record<string, string>> = {
  codeExecutionResult: 'executableCode',
  toolResponse: 'toolCall',
};

/**
 * The reason recorded for a `functionCall` part carrying `partialArgs` or `willContinue: true`:
 * a fragment of a call (Vertex AI's streamed arguments, which the request cannot ask for through
 * Toolgate). Judged arguments would not be the call's, so it never reaches the agent.
 */
export const PARTIAL_CALL_REASON = 'partial_arguments';

/**
 * Judges one `functionCall` part with `ctx.decideCall(id, name, args)`: an allowed call comes
 * back under the agent's name; a withheld one is dropped (`part: null`) with the explanation a
 * call-time rule gives. Undefined for a part without a name (nothing an agent could dispatch).
 */
export function decideGeminiFunctionCall(
  part: JsonObject,
  ctx: ResponseContext,
): { evidence: ToolCallEvidence; part: JsonObject | null } | undefined {
  const call = part.functionCall;
  if (!isJsonObject(call) || typeof call.name !== 'string') return undefined;
  const id = typeof call.id === 'string' ? call.id : '';
  let evidence = ctx.decideCall(id, call.name, call.args ?? {});
  if (call.partialArgs !== undefined || call.willContinue === true) {
    const { decision: _withheld, ...judged } = evidence;
    evidence = { ...judged, policy_state: 'blocked', reason: PARTIAL_CALL_REASON };
  }
  if (evidence.policy_state !== 'allowed') return { evidence, part: null };
  if (evidence.name === call.name) return { evidence, part };
  return { evidence, part: { ...part, functionCall: { ...call, name: evidence.name } } };
}

/**
 * Enforces the policy on one candidate (`candidates[i]`), recording into `evidence`:
 * - `functionCall` parts: judged; allowed ones renamed back, withheld ones removed (a text part
 *   with the call-time rule's explanation in their place);
 * - built-in tool parts (`executableCode`, `codeExecutionResult`, `toolCall`, `toolResponse`):
 *   described; removed when their tool is hidden, a result along with its call;
 * - `groundingMetadata` and `urlContextMetadata`: described; removed when their tool is hidden.
 * A content left without parts gets one empty text part, so the SDK still reads the turn.
 * Gemini has no tool-call finish reason (a call ends with `STOP`), so `finishReason` stays.
 * Never mutates the candidate; returns it unchanged when nothing changed.
 */
export function enforceGeminiCandidate(
  candidate: JsonValue,
  ctx: ResponseContext,
  evidence: ResponseEvidence,
  state: GeminiResponseState,
): JsonValue {
  if (!isJsonObject(candidate)) return candidate;
  let next = candidate;
  const edit = (): JsonObject => {
    if (next === candidate) next = { ...candidate };
    return next;
  };
  const content = candidate.content;
  if (isJsonObject(content) && Array.isArray(content.parts)) {
    const parts = enforceParts(content.parts, ctx, evidence, state);
    if (parts !== content.parts) edit().content = { ...content, parts };
  }
  if (isJsonObject(candidate.groundingMetadata)) {
    const described = describeGrounding(candidate.groundingMetadata, ctx);
    evidence.hosted_tool_events.push(described);
    if (described.policy_state === 'blocked') delete edit().groundingMetadata;
  }
  if (isJsonObject(candidate.urlContextMetadata)) {
    const described = describeUrlContext(candidate.urlContextMetadata, ctx);
    evidence.hosted_tool_events.push(described);
    if (described.policy_state === 'blocked') delete edit().urlContextMetadata;
  }
  return next;
}

function enforceParts(
  parts: JsonValue[],
  ctx: ResponseContext,
  evidence: ResponseEvidence,
  state: GeminiResponseState,
): JsonValue[] {
  const out: JsonValue[] = [];
  let changed = false;
  for (const part of parts) {
    if (!isJsonObject(part)) {
      out.push(part);
      continue;
    }
    const decision = decideGeminiFunctionCall(part, ctx);
    if (decision !== undefined) {
      evidence.tool_calls.push(decision.evidence);
      if (decision.part !== part) changed = true;
      if (decision.part !== null) out.push(decision.part);
      const explanation = withheldExplanation(decision.evidence);
      // The agent is told why, in a text part where the call would have been.
      if (explanation !== undefined) out.push({ text: explanation });
      continue;
    }
    const hosted = hostedPart(part);
    if (hosted === undefined) {
      out.push(part);
      continue;
    }
    const described = ctx.describeHostedEvent(hosted.event);
    evidence.hosted_tool_events.push(described);
    if (withheldHostedPart(hosted, described.policy_state === 'blocked', state)) changed = true;
    else out.push(part);
  }
  if (!changed) return parts;
  return out.length > 0 ? out : [{ text: '' }];
}

/**
 * Whether a built-in tool part is withheld: a call whose tool is hidden, or a result that is
 * itself blocked or answers a withheld call (by id, or, without one, the last call of its kind).
 */
function withheldHostedPart(
  hosted: NonNullable<ReturnType<typeof hostedPart>>,
  blocked: boolean,
  state: GeminiResponseState,
): boolean {
  if (hosted.role === 'call') {
    if (hosted.id !== undefined) {
      if (blocked) state.blockedIds.add(hosted.id);
    } else state.blockedUnnamed.set(hosted.key, blocked);
    return blocked;
  }
  const callKind = CALL_OF_RESULT[hosted.key] ?? hosted.key;
  const followsBlocked =
    hosted.id !== undefined
      ? state.blockedIds.has(hosted.id)
      : state.blockedUnnamed.get(callKind) === true;
  return blocked || followsBlocked;
}

/**
 * Enforces the policy on one `GenerateContentResponse` (a non-streaming body, or one chunk of a
 * stream when `state` is the stream's): every candidate through {@link enforceGeminiCandidate};
 * `usageMetadata`, `promptFeedback`, `modelVersion` and `responseId` pass untouched. Anything
 * that is not a response with a `candidates` array comes back as is.
 */
export function enforceGeminiChunk(
  body: unknown,
  ctx: ResponseContext,
  evidence: ResponseEvidence,
  state: GeminiResponseState,
): unknown {
  if (!isJsonObject(body) || !Array.isArray(body.candidates)) return body;
  let changed = false;
  const candidates = body.candidates.map((candidate) => {
    const next = enforceGeminiCandidate(candidate, ctx, evidence, state);
    if (next !== candidate) changed = true;
    return next;
  });
  return changed ? { ...body, candidates } : body;
}

/** Enforces the policy on a non-streaming `generateContent` response body. Never mutates it. */
export function enforceGeminiResponse(body: unknown, ctx: ResponseContext): EnforcedResponse {
  const evidence: ResponseEvidence = { tool_calls: [], hosted_tool_events: [] };
  return { body: enforceGeminiChunk(body, ctx, evidence, newGeminiResponseState()), evidence };
}
