import { isJsonObject, type JsonObject } from '../json/json-value.ts';
import type { ResponseEvidence } from '../receipt/receipt-schema.ts';
import {
  type AnthropicBlockKind,
  classifyAnthropicBlock,
  decideAnthropicToolUse,
  describeAnthropicHostedBlock,
  enforceAnthropicResponse,
  hostedBlockId,
  STOP_REASON_CHANGE,
} from '../response/anthropic-response.ts';
import { sanitizeProviderError } from '../response/provider-error.ts';
import type { ResponseContext } from '../response/response-context.ts';
import { withheldExplanation } from '../response/withheld-explanation.ts';
import {
  driveStreamMediator,
  parseEventData,
  type SseEvent,
  type StreamMediator,
  serializeJsonSse,
  serializeSse,
} from './sse.ts';

const SURFACE = 'anthropic-messages';

/** An upstream event with its parsed JSON. */
interface ParsedEvent {
  event: SseEvent;
  data: JsonObject;
}

/** A content block held from its `content_block_start` until its `content_block_stop`. */
interface HeldBlock {
  kind: AnthropicBlockKind;
  start: ParsedEvent;
  block: JsonObject;
  deltas: ParsedEvent[];
  /** Concatenated `input_json_delta.partial_json` pieces. */
  json: string;
  sawJson: boolean;
}

/**
 * Mediates an Anthropic Messages SSE stream (`message_start`, `content_block_*`,
 * `message_delta`, `message_stop`, `ping`, `error`).
 *
 * Text and thinking blocks stream through immediately. Every other block is held from its
 * `content_block_start` until its `content_block_stop`, then: `tool_use` is judged with
 * `ctx.decideCall(id, name, input)` (input = the joined `partial_json`, parsed; `''` → `{}`);
 * allowed → `content_block_start` under the agent's name, ONE `input_json_delta` with the whole
 * JSON text, `content_block_stop`; blocked → nothing of it, ever. Hosted blocks
 * (`server_tool_use`, `mcp_tool_use`, `*_tool_result`) are reported with
 * `ctx.describeHostedEvent` and pass through unless blocked (a blocked call also drops its result
 * blocks). Block indices are renumbered contiguously in emission order. `stop_reason: 'tool_use'`
 * becomes `end_turn` when no `tool_use` block was released. Blocks still held when the message
 * ends (`message_delta`, `message_stop`, `end()`) are settled then. Deltas for unknown or
 * already settled blocks, and block events without a numeric `index`, are dropped; every other event (ping, error, malformed JSON, unknown
 * types) passes through unchanged and in order.
 */
export function createAnthropicStreamMediator(ctx: ResponseContext): StreamMediator {
  const evidence: ResponseEvidence = { tool_calls: [], hosted_tool_events: [] };
  /** Upstream index → emitted index, for blocks that stream through. */
  const passing = new Map<number, number>();
  const held = new Map<number, HeldBlock>();
  const blockedHosted = new Set<string>();
  let nextIndex = 0;
  let toolUsesReleased = 0;

  function emitReindexed(parsed: ParsedEvent, index: number, out: string[]) {
    if (parsed.data.index === index) out.push(serializeSse(parsed.event));
    else
      out.push(serializeSse({ ...parsed.event, data: JSON.stringify({ ...parsed.data, index }) }));
  }

  function emitHeld(held: HeldBlock, stop: ParsedEvent | undefined, out: string[]) {
    const index = nextIndex++;
    emitReindexed(held.start, index, out);
    for (const delta of held.deltas) emitReindexed(delta, index, out);
    if (stop !== undefined) emitReindexed(stop, index, out);
  }

  function settleToolUse(block: HeldBlock, stop: ParsedEvent | undefined, out: string[]) {
    const input = block.sawJson ? parseInput(block.json) : (block.block.input ?? {});
    const decision = decideAnthropicToolUse(block.block, input, ctx);
    if (decision === undefined) {
      toolUsesReleased++;
      emitHeld(block, stop, out);
      return;
    }
    evidence.tool_calls.push(decision.evidence);
    if (decision.block === null) {
      const explanation = withheldExplanation(decision.evidence);
      if (explanation !== undefined) emitText(explanation, out);
      return;
    }
    toolUsesReleased++;
    const index = nextIndex++;
    const json = block.sawJson ? block.json : isEmptyObject(input) ? '' : JSON.stringify(input);
    out.push(
      serializeJsonSse('content_block_start', {
        ...block.start.data,
        index,
        content_block: decision.block,
      }),
      serializeJsonSse('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: json },
      }),
      serializeJsonSse('content_block_stop', { ...stop?.data, type: 'content_block_stop', index }),
    );
  }

  /** A text block of its own, where a withheld call would have been. */
  function emitText(text: string, out: string[]) {
    const index = nextIndex++;
    out.push(
      serializeJsonSse('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      }),
      serializeJsonSse('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text },
      }),
      serializeJsonSse('content_block_stop', { type: 'content_block_stop', index }),
    );
  }

  function settleHosted(block: HeldBlock, stop: ParsedEvent | undefined, out: string[]) {
    const full =
      block.kind === 'hosted_use' && block.sawJson
        ? { ...block.block, input: parseInput(block.json) as JsonObject }
        : block.block;
    const hosted = describeAnthropicHostedBlock(full, ctx);
    evidence.hosted_tool_events.push(hosted);
    const pairId = hostedBlockId(full);
    const pairedWithBlocked =
      block.kind === 'hosted_result' && pairId !== undefined && blockedHosted.has(pairId);
    if (hosted.policy_state === 'blocked' || pairedWithBlocked) {
      if (block.kind === 'hosted_use' && pairId !== undefined) blockedHosted.add(pairId);
      return;
    }
    emitHeld(block, stop, out);
  }

  function settle(index: number, stop: ParsedEvent | undefined, out: string[]) {
    const block = held.get(index);
    if (block === undefined) return;
    held.delete(index);
    if (block.kind === 'tool_use') settleToolUse(block, stop, out);
    else if (block.kind === 'other') emitHeld(block, stop, out);
    else settleHosted(block, stop, out);
  }

  function settleAll(out: string[]) {
    for (const index of [...held.keys()]) settle(index, undefined, out);
  }

  /**
   * `message_start` normally carries an empty `content`, but the SDKs accumulate whatever it
   * holds: a block there (a `tool_use`, a hosted call) is judged like one in a complete message,
   * and the blocks that stay take the first indices, so the stream's own blocks follow them.
   */
  function enforceMessageStart(parsed: ParsedEvent): string {
    const message = parsed.data.message;
    if (!isJsonObject(message) || !Array.isArray(message.content) || message.content.length === 0) {
      return serializeSse(parsed.event);
    }
    const enforced = enforceAnthropicResponse(message, ctx);
    evidence.tool_calls.push(...enforced.evidence.tool_calls);
    for (const hosted of enforced.evidence.hosted_tool_events) {
      evidence.hosted_tool_events.push(hosted);
      // Its result may still come as a block of the stream: it goes with its call.
      if (hosted.policy_state === 'blocked' && hosted.id !== undefined)
        blockedHosted.add(hosted.id);
    }
    const kept = (enforced.body as JsonObject).content as JsonObject[];
    nextIndex = kept.length;
    toolUsesReleased = kept.filter((b) => isJsonObject(b) && b.type === 'tool_use').length;
    if (enforced.body === message) return serializeSse(parsed.event);
    return serializeSse({
      ...parsed.event,
      data: JSON.stringify({ ...parsed.data, message: enforced.body }),
    });
  }

  function handleEvent(event: SseEvent, out: string[]) {
    const data = event.comment === undefined ? parseEventData(event.data) : undefined;
    if (!isJsonObject(data)) {
      out.push(serializeSse(event));
      return;
    }
    const parsed: ParsedEvent = { event, data };
    const type = typeof data.type === 'string' ? data.type : event.event;
    const index = typeof data.index === 'number' ? data.index : undefined;
    switch (type) {
      case 'message_start': {
        settleAll(out);
        passing.clear();
        nextIndex = 0;
        toolUsesReleased = 0;
        out.push(enforceMessageStart(parsed));
        return;
      }
      case 'content_block_start': {
        const block = data.content_block;
        if (index === undefined || !isJsonObject(block)) return; // unusable: never leak it
        if (block.type === 'text' || block.type === 'thinking') {
          const emitted = nextIndex++;
          passing.set(index, emitted);
          emitReindexed(parsed, emitted, out);
        } else {
          const kind = classifyAnthropicBlock(block.type);
          held.set(index, { kind, start: parsed, block, deltas: [], json: '', sawJson: false });
        }
        return;
      }
      case 'content_block_delta':
      case 'content_block_stop': {
        if (index === undefined) return; // cannot tell whose fragment it is: drop
        const emitted = passing.get(index);
        if (emitted !== undefined) {
          emitReindexed(parsed, emitted, out);
          return;
        }
        const block = held.get(index);
        if (block === undefined) return; // unknown or already settled: never leak it
        if (type === 'content_block_stop') {
          settle(index, parsed, out);
          return;
        }
        block.deltas.push(parsed);
        const delta = data.delta;
        if (
          isJsonObject(delta) &&
          delta.type === 'input_json_delta' &&
          typeof delta.partial_json === 'string'
        ) {
          block.json += delta.partial_json;
          block.sawJson = true;
        }
        return;
      }
      case 'message_delta': {
        settleAll(out);
        const delta = data.delta;
        if (isJsonObject(delta) && delta.stop_reason === 'tool_use' && toolUsesReleased === 0) {
          evidence.finish_reason = STOP_REASON_CHANGE;
          const rewritten = { ...data, delta: { ...delta, stop_reason: 'end_turn' } };
          out.push(serializeSse({ ...event, data: JSON.stringify(rewritten) }));
          return;
        }
        break;
      }
      case 'message_stop':
        settleAll(out);
        break;
      case 'error':
        // Only the error object goes on: an error event is no way around the policy.
        out.push(serializeSse({ ...event, data: sanitizeProviderError(SURFACE, 500, event.data) }));
        return;
      default:
        break;
    }
    out.push(serializeSse(event));
  }

  return driveStreamMediator(evidence, handleEvent, settleAll);
}

/** The complete tool input from the joined `partial_json` text: `''` → `{}`; invalid → the text. */
function parseInput(json: string): unknown {
  if (json.trim() === '') return {};
  const value = parseEventData(json);
  return value === undefined ? json : value;
}

function isEmptyObject(value: unknown): boolean {
  return isJsonObject(value) && Object.keys(value).length === 0;
}
