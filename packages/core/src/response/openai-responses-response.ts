import { isJsonObject, type JsonObject, type JsonValue } from '../json/json-value.ts';
import type { ResponseEvidence } from '../receipt/receipt-schema.ts';
import type { EnforcedResponse } from './openai-response.ts';
import {
  isNamedCall,
  messageCitations,
  messageWithoutCitations,
  outputText,
  readCallItem,
  readHostedItem,
} from './openai-responses-items.ts';
import type { ResponseContext } from './response-context.ts';
import { withheldExplanation } from './withheld-explanation.ts';

/** What judging one output item decided. */
export interface ItemDecision {
  /** The item as the agent gets it (renamed back, citations stripped), or null: withheld. */
  readonly item: JsonObject | null;
  /** What the agent is told in place of a withheld call (a call-time rule's message). */
  readonly explanation?: string;
}

/** Judges output items one by one, in order; the evidence goes to the receipt. */
export type ItemJudge = (item: JsonObject) => ItemDecision;

/**
 * The response-side judge of OpenAI Responses output items, shared by the JSON enforcer and
 * the stream mediator so both decide identically:
 * - calls the agent executes (`function_call`, `custom_tool_call`, `computer_call`,
 *   `local_shell_call`, `shell_call`, `apply_patch_call`) go through `ctx.decideCall(call_id,
 *   name, arguments)`: allowed ones come back under the agent's name, the others never reach
 *   the agent;
 * - provider-run items (`web_search_call`, `file_search_call`, `code_interpreter_call`,
 *   `image_generation_call`, `mcp_call`, `mcp_list_tools`, `mcp_approval_request`, a hosted
 *   `shell_call` and its output) are reported with `ctx.describeHostedEvent` and withheld when
 *   blocked;
 * - a message's `url_citation` annotations are one hosted `web_search` event, stripped when
 *   that is blocked;
 * - anything else (reasoning, call outputs, unknown items) passes.
 */
export function createItemJudge(ctx: ResponseContext, evidence: ResponseEvidence): ItemJudge {
  /** Ids (`id`, `call_id`) of withheld hosted items: their outputs go with them. */
  const withheld = new Set<string>();
  return (item) => {
    const call = readCallItem(item);
    if (call !== undefined) {
      const decision = ctx.decideCall(call.id, call.name, call.args ?? '');
      evidence.tool_calls.push(decision);
      if (decision.policy_state !== 'allowed') {
        const explanation = withheldExplanation(decision);
        return explanation === undefined ? { item: null } : { item: null, explanation };
      }
      const renamed = isNamedCall(item) && decision.name !== item.name && call.name === item.name;
      return { item: renamed ? { ...item, name: decision.name } : item };
    }
    const hosted = readHostedItem(item);
    if (hosted !== undefined) {
      const described = ctx.describeHostedEvent(hosted);
      evidence.hosted_tool_events.push(described);
      if (described.policy_state !== 'blocked') {
        return { item: item.type === 'mcp_list_tools' ? withoutHiddenMcpTools(item, ctx) : item };
      }
      for (const id of [item.id, item.call_id]) if (typeof id === 'string') withheld.add(id);
      return { item: null };
    }
    if (item.type === 'shell_call_output' && typeof item.call_id === 'string') {
      return { item: withheld.has(item.call_id) ? null : item };
    }
    if (item.type !== 'message') return { item };
    const sources = messageCitations(item);
    if (sources === undefined) return { item };
    const described = ctx.describeHostedEvent({
      providerType: 'url_citation',
      name: 'web_search',
      sources,
    });
    evidence.hosted_tool_events.push(described);
    return {
      item: described.policy_state === 'blocked' ? messageWithoutCitations(item) : item,
    };
  };
}

/**
 * An offered MCP server's tool list without the tools a hide rule covers: the provider lists
 * them from the server itself (the model saw them), but the agent is not shown them, and their
 * calls are withheld like any call of a hidden tool (judged the same way: `server_label/name`).
 * The same item when nothing is hidden.
 */
function withoutHiddenMcpTools(item: JsonObject, ctx: ResponseContext): JsonObject {
  if (!Array.isArray(item.tools) || typeof item.server_label !== 'string') return item;
  const server = item.server_label;
  const kept = item.tools.filter(
    (tool) =>
      !isJsonObject(tool) ||
      typeof tool.name !== 'string' ||
      ctx.describeHostedEvent({ providerType: 'mcp_call', server, name: `${server}/${tool.name}` })
        .policy_state !== 'blocked',
  );
  return kept.length === item.tools.length ? item : { ...item, tools: kept };
}

/**
 * Whether `url_citation` annotations must be stripped: the web search they cite is hidden or
 * refused. Pure: the stream mediator asks before the message that carries them is complete.
 */
export function citationsAreBlocked(ctx: ResponseContext): boolean {
  const described = ctx.describeHostedEvent({ providerType: 'url_citation', name: 'web_search' });
  return described.policy_state === 'blocked';
}

/**
 * The message item the agent gets in place of a call a call-time rule withheld: its
 * explanation as text, under an id derived from the withheld item's (deterministic).
 */
export function explanationMessage(withheldId: string, text: string): JsonObject {
  return {
    id: `msg_toolgate_${withheldId}`,
    type: 'message',
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
}

/**
 * Enforces the policy on a non-streaming Responses body (`{object: "response", output: […]}`):
 * every output item judged by {@link createItemJudge}, withheld items removed (an explanation
 * message in place of a call a call-time rule withheld), `output_text` recomputed when the body
 * carries it. Never mutates `body`, never throws on odd shapes: anything without an `output`
 * array comes back as it is, with empty evidence.
 */
export function enforceResponsesBody(body: unknown, ctx: ResponseContext): EnforcedResponse {
  const evidence: ResponseEvidence = { tool_calls: [], hosted_tool_events: [] };
  if (!isJsonObject(body) || !Array.isArray(body.output)) return { body, evidence };
  const { output, changed } = enforceOutput(body.output, createItemJudge(ctx, evidence));
  if (!changed) return { body, evidence };
  return { body: withOutput(body, output), evidence };
}

/** An output list judged item by item; `changed` when any item was rewritten or withheld. */
export function enforceOutput(
  items: ReadonlyArray<JsonValue>,
  judge: ItemJudge,
): { output: JsonValue[]; changed: boolean } {
  const output: JsonValue[] = [];
  let changed = false;
  for (const item of items) {
    if (!isJsonObject(item)) {
      output.push(item);
      continue;
    }
    const decision = judge(item);
    if (decision.item !== item) changed = true;
    if (decision.item !== null) output.push(decision.item);
    if (decision.explanation !== undefined) {
      output.push(explanationMessage(itemId(item), decision.explanation));
    }
  }
  return { output, changed };
}

/** A response object with `output` replaced, and `output_text` kept true to it if present. */
export function withOutput(response: JsonObject, output: JsonValue[]): JsonObject {
  const next: JsonObject = { ...response, output };
  if (typeof response.output_text === 'string') next.output_text = outputText(output);
  return next;
}

/** An item's `id`, else its `call_id`: what an explanation's id is made from. */
export function itemId(item: JsonObject): string {
  if (typeof item.id === 'string') return item.id;
  return typeof item.call_id === 'string' ? item.call_id : 'item';
}
