import { jsonTextWithRemembered } from '../json/json-text.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/json-value.ts';
import { RequestParser } from '../json/request-parser.ts';
import type { ResponseEvidence } from '../receipt/receipt-schema.ts';
import { isUrlCitation, withoutCitations } from '../response/openai-responses-items.ts';
import {
  citationsAreBlocked,
  createItemJudge,
  explanationMessage,
  itemId,
  withOutput,
} from '../response/openai-responses-response.ts';
import { sanitizeProviderError } from '../response/provider-error.ts';
import type { ResponseContext } from '../response/response-context.ts';
import { responsesErrorEvent } from './openai-responses-events.ts';
import {
  driveStreamMediator,
  parseEventData,
  type SseEvent,
  type StreamMediator,
  serializeJsonSse,
  serializeSse,
} from './sse.ts';

/** An upstream event with its parsed JSON. */
interface Parsed {
  readonly event: SseEvent;
  readonly data: JsonObject;
}

/**
 * Lifecycle events (`response.created`, `.in_progress`, `.completed`) carry the whole response,
 * whose `tools` echoes the request's (the provider-visible declarations: most of the event, the
 * same text on every stream): parsed like agent requests, so a known echo is not parsed again,
 * and written back as its remembered text (docs/gateway.md, the hot path). Process-wide, as the
 * same tool lists recur across requests; bounded (16 lists).
 */
const eventParser = new RequestParser({ within: 'response' });

/** `JSON.parse` of an event's data, with known echoed tool lists reused. */
const parseEvent = (text: string): unknown => eventParser.parse(text);

/** An output item held from its `output_item.added` until its `output_item.done`. */
interface HeldItem {
  readonly added: Parsed;
  /** The item as known so far: the added one, with streamed arguments folded in. */
  item: JsonObject;
  /** Its events in between, in order. */
  readonly events: Parsed[];
}

/** Item types that stream through as they come: text and reasoning, which nothing withholds. */
const STREAMED = new Set(['message', 'reasoning']);

/** Delta and done events that carry an item's arguments (folded into a held item). */
const ARGUMENT_EVENTS: Readonly<Record<string, { key: string; done: string }>> = {
  'response.function_call_arguments.delta': { key: 'arguments', done: '' },
  'response.function_call_arguments.done': { key: 'arguments', done: 'arguments' },
  'response.custom_tool_call_input.delta': { key: 'input', done: '' },
  'response.custom_tool_call_input.done': { key: 'input', done: 'input' },
  'response.mcp_call_arguments.delta': { key: 'arguments', done: '' },
  'response.mcp_call_arguments.done': { key: 'arguments', done: 'arguments' },
};

/** Lifecycle events carrying the whole response object. */
const SNAPSHOTS = new Set(['response.created', 'response.in_progress', 'response.queued']);
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Mediates an OpenAI Responses SSE stream (`response.created`, `response.output_item.added`, …
 * `response.completed`).
 *
 * Message and reasoning items stream through as they arrive. Every other item is held from its
 * `output_item.added` until its `output_item.done` (or the end of the response), then judged
 * with the JSON enforcer's item judge: a released function or custom call is sent as
 * `output_item.added`, ONE arguments delta, the arguments' `.done` and `output_item.done` under
 * the agent's name; other released items replay their events; a withheld item sends nothing,
 * ever (a call-time rule's explanation comes as a message of its own). `output_index` is
 * renumbered to the position in the output the agent is given and `sequence_number` to stay
 * contiguous, as the `openai` SDK's stream accumulator needs; `response.completed` (and
 * `created`, `in_progress`, `incomplete`, `failed`) carries that output. `url_citation`
 * annotations are stripped when the web search they cite is blocked. Events of unknown or
 * settled items are dropped; events about no item (and comments, malformed JSON) pass.
 */
export function createOpenAIResponsesStreamMediator(ctx: ResponseContext): StreamMediator {
  const evidence: ResponseEvidence = { tool_calls: [], hosted_tool_events: [] };
  const judge = createItemJudge(ctx, evidence);
  /** The output the agent is given, by emitted `output_index`. */
  const output: JsonObject[] = [];
  /** Upstream index → emitted index, for items streaming through. */
  const passing = new Map<number, number>();
  const held = new Map<number, HeldItem>();
  /** Every upstream index an item was added at. */
  const seen = new Set<number>();
  /** Per `emitted:content_index`, the next annotation index (citations may be dropped). */
  const annotations = new Map<string, number>();
  let blockCitations: boolean | undefined;
  let nextSeq: number | undefined;

  const citationsBlocked = () => {
    blockCitations ??= citationsAreBlocked(ctx);
    return blockCitations;
  };

  /** Sends `data` (the upstream event's, possibly rewritten) with the next sequence number. */
  function send(parsed: Parsed | undefined, type: string, data: JsonObject, out: string[]) {
    const upstreamSeq = data.sequence_number;
    nextSeq ??= typeof upstreamSeq === 'number' ? upstreamSeq : 0;
    const numbered = parsed === undefined || typeof upstreamSeq === 'number';
    const seq = numbered ? nextSeq++ : undefined;
    if (
      parsed !== undefined &&
      data === parsed.data &&
      (seq === undefined || seq === upstreamSeq)
    ) {
      out.push(serializeSse(parsed.event));
      return;
    }
    const next = seq === undefined ? data : { ...data, sequence_number: seq };
    if (parsed === undefined) out.push(serializeJsonSse(type, next));
    else out.push(serializeSse({ ...parsed.event, data: jsonTextWithRemembered(next) }));
  }

  /** `data` with `output_index` set (the same object when it already is). */
  const at = (data: JsonObject, index: number): JsonObject =>
    data.output_index === index ? data : { ...data, output_index: index };

  function onAdded(parsed: Parsed, out: string[]) {
    const { output_index: index, item } = parsed.data;
    if (typeof index !== 'number' || !isJsonObject(item) || seen.has(index)) return;
    seen.add(index);
    if (!STREAMED.has(item.type as string)) {
      held.set(index, { added: parsed, item, events: [] });
      return;
    }
    const emitted = output.length;
    output.push(item);
    passing.set(index, emitted);
    send(parsed, 'response.output_item.added', at(parsed.data, emitted), out);
  }

  function onDone(parsed: Parsed, out: string[]) {
    const { output_index: index, item } = parsed.data;
    if (typeof index !== 'number') return;
    const emitted = passing.get(index);
    if (emitted !== undefined) {
      passing.delete(index);
      const final = isJsonObject(item) ? (judge(item).item ?? item) : undefined;
      if (final !== undefined) output[emitted] = final;
      const data =
        final === undefined || final === item ? parsed.data : { ...parsed.data, item: final };
      send(parsed, 'response.output_item.done', at(data, emitted), out);
      return;
    }
    const entry = held.get(index);
    if (entry === undefined) return; // unknown or settled: never leak it
    held.delete(index);
    settle(entry, isJsonObject(item) ? item : entry.item, parsed, out);
  }

  /** Judges a held item and sends what the agent may see of it. */
  function settle(entry: HeldItem, item: JsonObject, done: Parsed | undefined, out: string[]) {
    const decision = judge(item);
    if (decision.item === null) {
      if (decision.explanation !== undefined) {
        sendExplanation(itemId(item), decision.explanation, out);
      }
      return;
    }
    const emitted = output.length;
    output.push(decision.item);
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      sendCall(entry, decision.item, emitted, out);
      return;
    }
    send(
      entry.added,
      'response.output_item.added',
      addedOf(entry, item, decision.item, emitted),
      out,
    );
    for (const event of entry.events) {
      send(event, String(event.data.type), at(event.data, emitted), out);
    }
    const doneData = done?.data ?? { type: 'response.output_item.done' };
    const data = { ...doneData, output_index: emitted, item: decision.item };
    send(done, 'response.output_item.done', data, out);
  }

  /**
   * The replayed `output_item.added` of a held item: as the provider sent it, unless the judge
   * rewrote the item (an MCP tool list without hidden tools), whose rewritten form it then
   * carries (in the added event's status): the item as first sent must not show what the final
   * one withholds.
   */
  function addedOf(entry: HeldItem, judged: JsonObject, final: JsonObject, emitted: number) {
    const data = at(entry.added.data, emitted);
    if (final === judged) return data;
    const added = entry.added.data.item as JsonObject;
    const item = added.status === undefined ? final : { ...final, status: added.status };
    return { ...data, item };
  }

  /** A released call, whole: its header, its arguments in one delta, their done, the item. */
  function sendCall(entry: HeldItem, item: JsonObject, emitted: number, out: string[]) {
    const fn = item.type === 'function_call';
    const key = fn ? 'arguments' : 'input';
    const text = typeof item[key] === 'string' ? (item[key] as string) : '';
    const added = entry.added.data.item as JsonObject;
    const header: JsonObject = { ...item, [key]: '' };
    if (added.status !== undefined) header.status = added.status;
    const base = { item_id: item.id ?? null, output_index: emitted };
    const prefix = fn ? 'response.function_call_arguments' : 'response.custom_tool_call_input';
    send(
      undefined,
      'response.output_item.added',
      { type: 'response.output_item.added', output_index: emitted, item: header },
      out,
    );
    if (text !== '') {
      send(undefined, `${prefix}.delta`, { type: `${prefix}.delta`, ...base, delta: text }, out);
    }
    const done: JsonObject = { type: `${prefix}.done`, ...base, [key]: text };
    if (fn) done.name = item.name as string;
    send(undefined, `${prefix}.done`, done, out);
    send(
      undefined,
      'response.output_item.done',
      { type: 'response.output_item.done', output_index: emitted, item },
      out,
    );
  }

  /** A message of its own telling the agent why a call was withheld. */
  function sendExplanation(withheldId: string, text: string, out: string[]) {
    const message = explanationMessage(withheldId, text);
    const emitted = output.length;
    output.push(message);
    const part = { type: 'output_text', text: '', annotations: [] };
    const base = { item_id: message.id as string, output_index: emitted, content_index: 0 };
    const events: JsonObject[] = [
      {
        type: 'response.output_item.added',
        output_index: emitted,
        item: { ...message, status: 'in_progress', content: [] },
      },
      { type: 'response.content_part.added', ...base, part },
      { type: 'response.output_text.delta', ...base, delta: text, logprobs: [] },
      { type: 'response.output_text.done', ...base, text, logprobs: [] },
      { type: 'response.content_part.done', ...base, part: { ...part, text } },
      { type: 'response.output_item.done', output_index: emitted, item: message },
    ];
    for (const event of events) send(undefined, event.type as string, event, out);
  }

  /** An event of an item streaming through: renumbered, citations dropped when blocked. */
  function onPassing(parsed: Parsed, type: string, emitted: number, out: string[]) {
    let data = at(parsed.data, emitted);
    if (type === 'response.output_text.annotation.added') {
      if (isUrlCitation(data.annotation) && citationsBlocked()) return;
      const key = `${emitted}:${String(data.content_index)}`;
      const index = annotations.get(key) ?? 0;
      annotations.set(key, index + 1);
      if (data.annotation_index !== index) data = { ...data, annotation_index: index };
    } else if (type === 'response.content_part.done' && citationsBlocked()) {
      const part = withoutCitations(data.part as JsonValue);
      if (part !== data.part) data = { ...data, part };
    }
    send(parsed, type, data, out);
  }

  /** Folds a held item's streamed arguments into it, and keeps the event for a replay. */
  function absorb(entry: HeldItem, parsed: Parsed, type: string) {
    entry.events.push(parsed);
    const fold = ARGUMENT_EVENTS[type];
    if (fold === undefined) return;
    const value = fold.done === '' ? parsed.data.delta : parsed.data[fold.done];
    if (typeof value !== 'string') return;
    const current = entry.item[fold.key];
    const before = fold.done === '' && typeof current === 'string' ? current : '';
    entry.item = { ...entry.item, [fold.key]: before + value };
  }

  /** Settles every held item, upstream order, with its final form from `finals` when given. */
  function settleAll(finals: ReadonlyArray<JsonValue>, out: string[]) {
    for (const index of [...held.keys()].sort((a, b) => a - b)) {
      const entry = held.get(index) as HeldItem;
      held.delete(index);
      const final = finals[index];
      const sameItem = isJsonObject(final) && final.type === entry.item.type;
      settle(entry, sameItem ? final : entry.item, undefined, out);
    }
  }

  /** The response of a lifecycle event with the output the agent was given. */
  function withAgentOutput(data: JsonObject): JsonObject {
    const response = data.response;
    if (!isJsonObject(response)) return data;
    const upstream = Array.isArray(response.output) ? response.output : [];
    if (upstream.length === 0 && output.length === 0) return data;
    return { ...data, response: withOutput(response, [...output]) };
  }

  /**
   * The end of the response: held items settle (in their final form), items still streaming
   * take theirs, and items the stream never showed are judged now, so `response.output` is
   * exactly what the agent was given.
   */
  function finish(parsed: Parsed, type: string, out: string[]) {
    const response = parsed.data.response;
    const finals = isJsonObject(response) && Array.isArray(response.output) ? response.output : [];
    settleAll(finals, out);
    for (const [index, emitted] of passing) {
      const final = finals[index];
      if (isJsonObject(final)) output[emitted] = judge(final).item ?? final;
    }
    passing.clear();
    finals.forEach((final, index) => {
      if (seen.has(index) || !isJsonObject(final)) return;
      seen.add(index);
      const decision = judge(final);
      if (decision.item !== null) output.push(decision.item);
      if (decision.explanation !== undefined) {
        output.push(explanationMessage(itemId(final), decision.explanation));
      }
    });
    send(parsed, type, withAgentOutput(parsed.data), out);
  }

  function handleEvent(event: SseEvent, out: string[]) {
    const data = event.comment === undefined ? parseEventData(event.data, parseEvent) : undefined;
    if (!isJsonObject(data)) {
      out.push(serializeSse(event));
      return;
    }
    const parsed: Parsed = { event, data };
    const type = typeof data.type === 'string' ? data.type : (event.event ?? '');
    if (data.error != null && !TERMINAL.has(type)) {
      // The openai SDK throws on an event carrying `error`: only the error object goes on.
      out.push(
        serializeSse({
          ...event,
          data: sanitizeProviderError('openai-responses', 500, event.data),
        }),
      );
      return;
    }
    if (type === 'error') return send(parsed, type, responsesErrorEvent(data), out);
    if (SNAPSHOTS.has(type)) return send(parsed, type, withAgentOutput(data), out);
    if (TERMINAL.has(type)) return finish(parsed, type, out);
    if (type === 'response.output_item.added') return onAdded(parsed, out);
    if (type === 'response.output_item.done') return onDone(parsed, out);
    const index = data.output_index;
    if (typeof index !== 'number') return send(parsed, type, data, out);
    const emitted = passing.get(index);
    if (emitted !== undefined) return onPassing(parsed, type, emitted, out);
    const entry = held.get(index);
    // An event of an unknown or settled item cannot be told apart from a leak: dropped.
    if (entry !== undefined) absorb(entry, parsed, type);
  }

  return driveStreamMediator(evidence, handleEvent, (out) => settleAll([], out));
}
