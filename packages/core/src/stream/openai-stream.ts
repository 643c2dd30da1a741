import { isJsonObject, type JsonObject } from '../json/json-value.ts';
import type { ResponseEvidence } from '../receipt/receipt-schema.ts';
import {
  decideOpenAIToolCall,
  describeUrlCitations,
  finishReasonChange,
  isToolFinishReason,
} from '../response/openai-response.ts';
import { sanitizeProviderError } from '../response/provider-error.ts';
import type { ResponseContext } from '../response/response-context.ts';
import { withheldExplanation } from '../response/withheld-explanation.ts';
import { driveStreamMediator, type SseEvent, type StreamMediator, serializeSse } from './sse.ts';

/** Chunk fields copied onto the chunks the mediator synthesizes for released calls. */
const META_KEYS = ['id', 'object', 'created', 'model', 'system_fingerprint', 'service_tier'];

/** A chunk the mediator synthesizes for a held call: the upstream chunk's metadata, one delta. */
function chunkFor(call: PendingCall, choiceIndex: number, delta: JsonObject): string {
  const chunk: JsonObject = {
    ...call.meta,
    choices: [{ index: choiceIndex, delta, logprobs: null, finish_reason: null }],
  };
  // With `stream_options.include_usage` every chunk but the last carries `usage: null`.
  if (call.usageNull) chunk.usage = null;
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** Tool index used for a legacy `delta.function_call`. */
const LEGACY = -1;

interface PendingCall {
  toolIndex: number;
  id: string | undefined;
  kind: 'function' | 'custom';
  name: string;
  args: string;
  /** Metadata of the upstream chunk that carried the first fragment. */
  meta: JsonObject;
  /** That chunk had `usage: null`. */
  usageNull: boolean;
}

interface ChoiceState {
  /** Held calls, ascending by upstream tool index. */
  pending: PendingCall[];
  legacy: PendingCall | undefined;
  /** Upstream tool indices already decided: later fragments for them are dropped. */
  decided: Set<number>;
  /** Allowed calls emitted so far: the next emitted call gets this index. */
  released: number;
  legacyDecided: boolean;
  legacyReleased: boolean;
  /** Explanations of withheld calls emitted so far (each after the last, a blank line apart). */
  explained: number;
}

/** A text delta with something in it: an explanation after it starts a new paragraph. */
const HAS_TEXT = /"content":"[^"]/;

/**
 * Mediates an OpenAI Chat Completions SSE stream (`data: {chat.completion.chunk}` … `data: [DONE]`).
 *
 * Text deltas (`content`, `refusal`, `role`) pass through in the same `push` that completed
 * them. Tool-call fragments are held per (choice, tool index) until the call is complete (a
 * higher tool index of the same choice, that choice's `finish_reason`, `[DONE]` or `end()`), then
 * judged with `ctx.decideCall(id, name, fullArguments)`: an allowed call is emitted as ONE
 * synthesized chunk carrying the whole call under the agent's name, a blocked call is never
 * emitted at all. Emitted tool indices are contiguous per choice (0, 1, 2, …). Pending calls are
 * released before the finish chunk; `finish_reason: 'tool_calls'` becomes `stop` when no call was
 * released. Fragments arriving for an already decided call are dropped. Everything else (usage
 * chunks, `[DONE]`, comments, errors, malformed JSON, unknown events) passes through unchanged and
 * in order. `url_citation` annotations in a delta are reported as a hosted `web_search` event.
 */
export function createOpenAIStreamMediator(ctx: ResponseContext): StreamMediator {
  const choiceStates = new Map<number, ChoiceState>();
  const evidence: ResponseEvidence = { tool_calls: [], hosted_tool_events: [] };
  /** Whether text went out before: then an explanation is its own paragraph, as in a body. */
  let textSeen = false;

  function stateFor(choiceIndex: number): ChoiceState {
    let state = choiceStates.get(choiceIndex);
    if (state === undefined) {
      state = {
        pending: [],
        legacy: undefined,
        decided: new Set(),
        released: 0,
        legacyDecided: false,
        legacyReleased: false,
        explained: 0,
      };
      choiceStates.set(choiceIndex, state);
    }
    return state;
  }

  function release(choiceIndex: number, state: ChoiceState, call: PendingCall, out: string[]) {
    const fn: JsonObject =
      call.kind === 'custom'
        ? { name: call.name, input: call.args }
        : { name: call.name, arguments: call.args };
    const upstream: JsonObject = { type: call.kind, [call.kind]: fn };
    if (call.id !== undefined) upstream.id = call.id;
    const decision = decideOpenAIToolCall(upstream, ctx);
    if (decision === undefined) return;
    evidence.tool_calls.push(decision.evidence);
    let delta: JsonObject;
    if (decision.call === null) {
      const explanation = withheldExplanation(decision.evidence);
      if (explanation === undefined) return;
      // The agent is told why, as text where the call would have been (a paragraph of its own,
      // as enforceOpenAIResponse writes it).
      const paragraph = textSeen || state.explained > 0 ? '\n\n' : '';
      state.explained++;
      delta = { content: `${paragraph}${explanation}` };
      out.push(chunkFor(call, choiceIndex, delta));
      return;
    }
    if (call.toolIndex === LEGACY) {
      state.legacyReleased = true;
      delta = { function_call: decision.call.function ?? fn };
    } else {
      const { id, type, ...rest } = decision.call;
      const emitted: JsonObject = { index: state.released++ };
      if (id !== undefined) emitted.id = id;
      emitted.type = type ?? 'function';
      Object.assign(emitted, rest);
      delta = { tool_calls: [emitted] };
    }
    out.push(chunkFor(call, choiceIndex, delta));
  }

  function releaseChoice(choiceIndex: number, state: ChoiceState, out: string[]) {
    for (const call of state.pending) {
      state.decided.add(call.toolIndex);
      release(choiceIndex, state, call, out);
    }
    state.pending = [];
    if (state.legacy !== undefined) {
      const call = state.legacy;
      state.legacy = undefined;
      state.legacyDecided = true;
      release(choiceIndex, state, call, out);
    }
  }

  function releaseAll(out: string[]) {
    const indices = [...choiceStates.keys()].sort((a, b) => a - b);
    for (const index of indices) releaseChoice(index, stateFor(index), out);
  }

  function absorbToolCall(
    choiceIndex: number,
    state: ChoiceState,
    fragment: JsonObject,
    chunk: JsonObject,
    out: string[],
  ) {
    const toolIndex = typeof fragment.index === 'number' ? fragment.index : 0;
    if (state.decided.has(toolIndex)) return;
    while (state.pending.length > 0 && (state.pending[0] as PendingCall).toolIndex < toolIndex) {
      const call = state.pending.shift() as PendingCall;
      state.decided.add(call.toolIndex);
      release(choiceIndex, state, call, out);
    }
    let call = state.pending[0];
    if (call === undefined || call.toolIndex !== toolIndex) {
      call = newPending(toolIndex, chunk);
      state.pending.unshift(call);
    }
    mergeFragment(call, fragment);
  }

  function absorbFunctionCall(state: ChoiceState, fragment: JsonObject, chunk: JsonObject) {
    if (state.legacyDecided) return;
    state.legacy ??= newPending(LEGACY, chunk);
    mergeFragment(state.legacy, { function: fragment });
  }

  /** Handles one choice of a chunk; returns it (same object when unchanged), a copy, or null. */
  function handleChoice(choice: JsonObject, chunk: JsonObject, out: string[]): JsonObject | null {
    const choiceIndex = typeof choice.index === 'number' ? choice.index : 0;
    const delta = isJsonObject(choice.delta) ? choice.delta : undefined;
    let nextDelta = delta;
    if (delta !== undefined) {
      if (typeof delta.content === 'string' && delta.content !== '') textSeen = true;
      if (delta.tool_calls != null || delta.function_call != null) {
        const state = stateFor(choiceIndex);
        if (Array.isArray(delta.tool_calls)) {
          for (const fragment of delta.tool_calls) {
            if (isJsonObject(fragment)) absorbToolCall(choiceIndex, state, fragment, chunk, out);
          }
        }
        if (isJsonObject(delta.function_call))
          absorbFunctionCall(state, delta.function_call, chunk);
        nextDelta = { ...delta };
        delete nextDelta.tool_calls;
        delete nextDelta.function_call;
      }
      const citations = describeUrlCitations(delta.annotations, ctx);
      if (citations !== undefined) {
        evidence.hosted_tool_events.push(citations.evidence);
        if (citations.annotations !== delta.annotations) {
          nextDelta = { ...nextDelta };
          if (citations.annotations.length > 0) {
            nextDelta.annotations = citations.annotations as JsonObject[];
          } else {
            delete nextDelta.annotations;
          }
        }
      }
    }
    let finish = choice.finish_reason;
    if (finish != null) {
      const state = stateFor(choiceIndex);
      releaseChoice(choiceIndex, state, out);
      if (isToolFinishReason(finish) && state.released === 0 && !state.legacyReleased) {
        evidence.finish_reason = finishReasonChange(finish as string, 'stop');
        finish = 'stop';
      }
    }
    if (nextDelta === delta && finish === choice.finish_reason) return choice;
    const keep =
      finish != null || choice.logprobs != null || (nextDelta !== undefined && hasValue(nextDelta));
    if (!keep) return null;
    const next: JsonObject = { ...choice };
    if (nextDelta !== undefined) next.delta = nextDelta;
    if (finish !== choice.finish_reason) next.finish_reason = finish ?? null;
    return next;
  }

  function handleEvent(event: SseEvent, out: string[]) {
    if (event.comment !== undefined || event.data === '') {
      out.push(serializeSse(event));
      return;
    }
    if (event.data.startsWith('[DONE]')) {
      releaseAll(out);
      out.push(serializeSse(event));
      return;
    }
    // Text deltas that certainly need nothing are passed on without being parsed.
    const noWork = certainlyNoWork(event.data);
    if (noWork && !textSeen && HAS_TEXT.test(event.data)) textSeen = true;
    const chunk = noWork ? undefined : parseJson(event.data);
    if (isJsonObject(chunk) && chunk.error != null) {
      // The openai SDK throws on an `error` chunk; only the error object goes on, so an error
      // is no way around the policy.
      out.push(
        serializeSse({ ...event, data: sanitizeProviderError('openai-chat', 500, event.data) }),
      );
      return;
    }
    if (!isJsonObject(chunk) || !Array.isArray(chunk.choices) || !needsWork(chunk.choices)) {
      out.push(serializeSse(event));
      return;
    }
    const choices: JsonObject[] = [];
    let changed = false;
    for (const choice of chunk.choices) {
      if (!isJsonObject(choice)) {
        choices.push(choice as unknown as JsonObject);
        continue;
      }
      const next = handleChoice(choice, chunk, out);
      if (next !== choice) changed = true;
      if (next !== null) choices.push(next);
    }
    if (!changed) {
      out.push(serializeSse(event));
      return;
    }
    if (choices.length === 0 && chunk.usage == null) return;
    out.push(serializeSse({ ...event, data: JSON.stringify({ ...chunk, choices }) }));
  }

  return driveStreamMediator(evidence, handleEvent, releaseAll);
}

function newPending(toolIndex: number, chunk: JsonObject): PendingCall {
  const meta: JsonObject = {};
  for (const key of META_KEYS) {
    const value = chunk[key];
    if (value !== undefined) meta[key] = value;
  }
  const usageNull = chunk.usage === null;
  return { toolIndex, id: undefined, kind: 'function', name: '', args: '', meta, usageNull };
}

/** Merges one fragment into a held call, as the openai SDK's stream accumulator does. */
function mergeFragment(call: PendingCall, fragment: JsonObject) {
  if (typeof fragment.id === 'string' && fragment.id !== '') call.id = fragment.id;
  if (fragment.type === 'custom') call.kind = 'custom';
  const fn = isJsonObject(fragment.custom) ? fragment.custom : fragment.function;
  if (isJsonObject(fragment.custom)) call.kind = 'custom';
  if (!isJsonObject(fn)) return;
  if (typeof fn.name === 'string' && fn.name !== '') call.name = fn.name;
  const piece = call.kind === 'custom' ? fn.input : fn.arguments;
  if (typeof piece === 'string') call.args += piece;
}

/** Whether any choice carries something the mediator acts on. */
export function needsWork(choices: unknown[]): boolean {
  for (const choice of choices) {
    if (!isJsonObject(choice)) continue;
    if (choice.finish_reason != null) return true;
    const delta = choice.delta;
    if (
      isJsonObject(delta) &&
      (delta.tool_calls != null || delta.function_call != null || delta.annotations != null)
    ) {
      return true;
    }
  }
  return false;
}

const FINISH_REASON_KEY = '"finish_reason"';

/**
 * Whether an event's text shows, without parsing it, that {@link needsWork} would be false and
 * the event is no error: no `tool_calls`, `function_call`, `annotations` or `"error"` anywhere
 * in it, and every `"finish_reason"` member `null`. Most chunks of a stream are text deltas, and parsing each
 * one cost more than everything else the proxy does with it. Conservative: a `false` only means
 * the event is parsed. Exact where it says `true`: with no `\u` escape in the text, a key can
 * only be written literally, so a key missing from the text is missing from the parsed value;
 * and `"finish_reason"` with both quotes bare is never inside a string (a quote in a string is
 * escaped), so every member of that name is among the occurrences checked.
 */
export function certainlyNoWork(data: string): boolean {
  if (
    data.includes('\\u') ||
    data.includes('tool_calls') ||
    data.includes('function_call') ||
    data.includes('annotations') ||
    data.includes('"error"')
  ) {
    return false;
  }
  for (let at = data.indexOf(FINISH_REASON_KEY); at !== -1; ) {
    let i = skipJsonSpace(data, at + FINISH_REASON_KEY.length);
    if (data.charCodeAt(i) !== COLON) return false;
    i = skipJsonSpace(data, i + 1);
    if (!data.startsWith('null', i)) return false;
    at = data.indexOf(FINISH_REASON_KEY, i + 4);
  }
  return true;
}

const COLON = 0x3a;

function skipJsonSpace(text: string, from: number): number {
  let i = from;
  for (;;) {
    const code = text.charCodeAt(i);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return i;
    i++;
  }
}

function hasValue(object: JsonObject): boolean {
  for (const key in object) if (object[key] != null) return true;
  return false;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
