import { isJsonObject, type JsonObject } from '../json/json-value.ts';
import type {
  HostedToolEvidence,
  ResponseEvidence,
  ToolCallEvidence,
} from '../receipt/receipt-schema.ts';
import type { EnforcedResponse } from './openai-response.ts';
import type { HostedEventInput, ResponseContext } from './response-context.ts';
import { withheldExplanation } from './withheld-explanation.ts';

/** How the response side treats a Messages content block. */
export type AnthropicBlockKind = 'tool_use' | 'hosted_use' | 'hosted_result' | 'other';

/**
 * Classifies a content block type: `tool_use` (a call the agent executes), a provider-hosted
 * call (`server_tool_use`, `mcp_tool_use`), a provider-hosted result (`*_tool_result`, e.g.
 * `web_search_tool_result`, `mcp_tool_result`), or anything else (text, thinking, …).
 */
export function classifyAnthropicBlock(type: unknown): AnthropicBlockKind {
  if (type === 'tool_use') return 'tool_use';
  if (type === 'server_tool_use' || type === 'mcp_tool_use') return 'hosted_use';
  if (typeof type === 'string' && type.endsWith('_tool_result')) return 'hosted_result';
  return 'other';
}

/**
 * Judges one `tool_use` block with `ctx.decideCall(block.id, block.name, input)` and returns the
 * block renamed to the agent's name, or null when blocked. `input` is the complete input (the
 * stream mediator passes the parsed `input_json_delta` text). Returns undefined for a block
 * without a name. Shared by the non-streaming enforcer and the stream mediator.
 */
export function decideAnthropicToolUse(
  block: JsonObject,
  input: unknown,
  ctx: ResponseContext,
): { evidence: ToolCallEvidence; block: JsonObject | null } | undefined {
  if (typeof block.name !== 'string') return undefined;
  const id = typeof block.id === 'string' ? block.id : '';
  const evidence = ctx.decideCall(id, block.name, input);
  if (evidence.policy_state !== 'allowed') return { evidence, block: null };
  if (evidence.name === block.name) return { evidence, block };
  return { evidence, block: { ...block, name: evidence.name } };
}

/**
 * Describes a provider-hosted block (`server_tool_use`, `mcp_tool_use`, `*_tool_result`) with
 * `ctx.describeHostedEvent`. Calls pass `{id, providerType: type, name, input}` (MCP connector
 * calls name the tool `server_name/name`); results pass `{id: tool_use_id, providerType: type}`
 * plus the URLs they carry as `sources` and their `error_code` as `error`.
 */
export function describeAnthropicHostedBlock(
  block: JsonObject,
  ctx: ResponseContext,
): HostedToolEvidence {
  const providerType = typeof block.type === 'string' ? block.type : 'unknown';
  const event: HostedEventInput = { providerType };
  if (classifyAnthropicBlock(block.type) === 'hosted_use') {
    if (typeof block.id === 'string') event.id = block.id;
    if (typeof block.name === 'string') {
      event.name =
        typeof block.server_name === 'string' ? `${block.server_name}/${block.name}` : block.name;
    }
    if (typeof block.server_name === 'string') event.server = block.server_name;
    if (block.input !== undefined) event.input = block.input;
    return ctx.describeHostedEvent(event);
  }
  if (typeof block.tool_use_id === 'string') event.id = block.tool_use_id;
  const sources = resultSources(block.content);
  if (sources.length > 0) event.sources = sources;
  const error = resultError(block);
  if (error !== undefined) event.error = error;
  return ctx.describeHostedEvent(event);
}

function resultSources(content: unknown): string[] {
  const sources: string[] = [];
  const items = Array.isArray(content) ? content : [content];
  for (const item of items) {
    if (isJsonObject(item) && typeof item.url === 'string' && !sources.includes(item.url)) {
      sources.push(item.url);
    }
  }
  return sources;
}

function resultError(block: JsonObject): string | undefined {
  const content = block.content;
  if (isJsonObject(content) && typeof content.error_code === 'string') return content.error_code;
  if (block.is_error === true) return 'is_error';
  return undefined;
}

/** The id that pairs a hosted call with its result blocks. */
export function hostedBlockId(block: JsonObject): string | undefined {
  const id = classifyAnthropicBlock(block.type) === 'hosted_use' ? block.id : block.tool_use_id;
  return typeof id === 'string' ? id : undefined;
}

/** The `evidence.finish_reason` value recorded when enforcement rewrote `stop_reason`. */
export const STOP_REASON_CHANGE = 'tool_use->end_turn';

/**
 * Enforces the policy on a non-streaming Messages response body.
 *
 * `tool_use` blocks: `ctx.decideCall(id, name, input)`; allowed → renamed to the agent's name,
 * blocked → removed. If no `tool_use` block remains and `stop_reason` is `tool_use`, it becomes
 * `end_turn` (recorded as `evidence.finish_reason = 'tool_use->end_turn'`). Hosted blocks
 * (`server_tool_use`, `mcp_tool_use`, `*_tool_result`) are reported with
 * `ctx.describeHostedEvent`; a blocked call is removed together with its result blocks (by
 * `tool_use_id`), a blocked result alone is removed. Other blocks (text with its citations,
 * thinking, …) pass untouched.
 *
 * Never mutates `body` and never throws on odd shapes: anything that is not a message with a
 * `content` array comes back as is, with empty evidence. Unchanged blocks are shared.
 */
export function enforceAnthropicResponse(body: unknown, ctx: ResponseContext): EnforcedResponse {
  const evidence: ResponseEvidence = { tool_calls: [], hosted_tool_events: [] };
  if (!isJsonObject(body) || !Array.isArray(body.content)) return { body, evidence };
  const blockedHosted = new Set<string>();
  const content: unknown[] = [];
  let changed = false;
  let toolUsesLeft = 0;
  for (const block of body.content) {
    const kind = isJsonObject(block) ? classifyAnthropicBlock(block.type) : 'other';
    if (kind === 'other' || !isJsonObject(block)) {
      content.push(block);
      continue;
    }
    if (kind === 'tool_use') {
      const decision = decideAnthropicToolUse(block, block.input, ctx);
      if (decision === undefined) {
        content.push(block);
        toolUsesLeft++;
        continue;
      }
      evidence.tool_calls.push(decision.evidence);
      if (decision.block !== block) changed = true;
      if (decision.block !== null) {
        content.push(decision.block);
        toolUsesLeft++;
      }
      const explanation = withheldExplanation(decision.evidence);
      // The agent is told why, in a text block where the call would have been.
      if (explanation !== undefined) content.push({ type: 'text', text: explanation });
      continue;
    }
    const hosted = describeAnthropicHostedBlock(block, ctx);
    evidence.hosted_tool_events.push(hosted);
    const pairId = hostedBlockId(block);
    const pairedWithBlocked =
      kind === 'hosted_result' && pairId !== undefined && blockedHosted.has(pairId);
    if (hosted.policy_state === 'blocked' || pairedWithBlocked) {
      if (kind === 'hosted_use' && pairId !== undefined) blockedHosted.add(pairId);
      changed = true;
      continue;
    }
    content.push(block);
  }
  const rewriteStop = toolUsesLeft === 0 && body.stop_reason === 'tool_use';
  if (!changed && !rewriteStop) return { body, evidence };
  const next: JsonObject = { ...body, content: content as JsonObject[] };
  if (rewriteStop) {
    next.stop_reason = 'end_turn';
    evidence.finish_reason = STOP_REASON_CHANGE;
  }
  return { body: next, evidence };
}
