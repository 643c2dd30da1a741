import { hashLenient, type Sha256Hash } from '../hash/hash.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/json-value.ts';
import { RECEIPT_LIMITS } from '../receipt/receipt-limits.ts';
import type { ToolResultEvidence } from '../receipt/receipt-schema.ts';
import type { Surface } from '../resources/vocabulary.ts';
import { type ActionIdentity, normalizeAction, parseArguments } from './action.ts';
import type { CompiledBundle } from './compile-bundle.ts';
import { redactValue } from './redact.ts';

/**
 * The results of earlier tool calls an agent sent back in one request: what it added since the
 * last assistant turn, in message order. Read from the request alone (stateless): the same
 * request gives the same results.
 */
export interface ToolResults {
  /**
   * At most {@link RECEIPT_LIMITS.toolResults} entries, `elapsed_ms` null: only the gateway
   * knows when it released a call. Ids are as the agent sent them (the receipt bounds them).
   */
  readonly entries: ReadonlyArray<ToolResultEvidence>;
  /** True when the agent sent more results than a receipt records. */
  readonly truncated: boolean;
}

/** Shared by every request without tool results: reading them costs nothing more. */
export const NO_TOOL_RESULTS: ToolResults = Object.freeze({
  entries: Object.freeze([]) as ReadonlyArray<ToolResultEvidence>,
  truncated: false,
});

/** A tool result found in the request, before it is hashed. */
export interface FoundToolResult {
  id: string;
  content: JsonValue | undefined;
  isError: boolean;
}

/** A call as an assistant message holds it: the agent-facing name and the raw arguments. */
export interface EchoedCall {
  name: string;
  arguments: unknown;
}

/**
 * The tool results of `body`: OpenAI `role: "tool"` messages after the last assistant message;
 * Anthropic `tool_result` blocks in the user messages after it. Each is linked to the call of
 * the same id in the conversation's assistant messages (the latest one), whose `action_id` is
 * computed exactly as the response side computed it when the call was released; its content is
 * hashed canonically, redacted as arguments are. A request with no such results costs one scan
 * back to the last assistant message.
 */
export function readToolResults(
  bundle: Pick<CompiledBundle, 'metaTools' | 'redact'>,
  surface: Surface,
  body: JsonObject,
  identity: ActionIdentity | undefined,
): ToolResults {
  const messages = body.messages;
  if (!Array.isArray(messages)) return NO_TOOL_RESULTS;
  const anthropic = surface === 'anthropic-messages';
  let lastAssistant = messages.length - 1;
  while (lastAssistant >= 0 && !isAssistant(messages[lastAssistant])) lastAssistant--;
  // One more than a receipt records, to know whether any were left out.
  const found: FoundToolResult[] = [];
  const max = RECEIPT_LIMITS.toolResults + 1;
  for (let i = lastAssistant + 1; i < messages.length && found.length < max; i++) {
    const message = messages[i];
    if (!isJsonObject(message)) continue;
    if (anthropic) anthropicResults(message, found, max);
    else openAIResult(message, found);
  }
  if (found.length === 0) return NO_TOOL_RESULTS;
  const kept = found.slice(0, RECEIPT_LIMITS.toolResults);
  const calls = echoedCalls(messages, lastAssistant, new Set(kept.map((r) => r.id)), anthropic);
  const entries = kept.map((result) =>
    toolResultEvidence(result, calls.get(result.id), bundle, identity),
  );
  return { entries, truncated: found.length > kept.length };
}

/**
 * One result's evidence: its content hashed (redacted as arguments are), linked to the call it
 * answers by that call's action id when the conversation holds the call.
 */
export function toolResultEvidence(
  result: FoundToolResult,
  call: EchoedCall | undefined,
  bundle: Pick<CompiledBundle, 'metaTools' | 'redact'>,
  identity: ActionIdentity | undefined,
): ToolResultEvidence {
  const { hash, redacted } = hashToolResult(result.content, bundle.redact);
  const entry: ToolResultEvidence = {
    tool_call_id: result.id,
    result_hash: hash,
    is_error: result.isError,
    elapsed_ms: null,
  };
  const actionId = call && echoedActionId(call, bundle, identity);
  if (actionId !== undefined) entry.action_id = actionId;
  if (redacted.length > 0) entry.redacted_result = redacted;
  return entry;
}

function isAssistant(message: JsonValue | undefined): boolean {
  return isJsonObject(message) && message.role === 'assistant';
}

/**
 * The call's action id as `decideCall` computed it (the arguments parsed once, then
 * normalized); undefined for arguments nested too deeply to walk, which no released call had.
 */
function echoedActionId(
  call: EchoedCall,
  bundle: Pick<CompiledBundle, 'metaTools' | 'redact'>,
  identity: ActionIdentity | undefined,
): string | undefined {
  try {
    return normalizeAction(
      { name: call.name, arguments: parseArguments(call.arguments) },
      { identity, metaTools: bundle.metaTools, redact: bundle.redact },
    ).action_id;
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return undefined;
  }
}

/** An OpenAI `role: "tool"` message as a result; legacy `role: "function"` ones carry no id. */
function openAIResult(message: JsonObject, found: FoundToolResult[]): void {
  if (message.role !== 'tool' || typeof message.tool_call_id !== 'string') return;
  found.push({ id: message.tool_call_id, content: message.content, isError: false });
}

/** The `tool_result` blocks of an Anthropic user message, until `found` holds `max`. */
function anthropicResults(message: JsonObject, found: FoundToolResult[], max: number): void {
  const content = message.content;
  if (!Array.isArray(content)) return;
  for (const block of content) {
    if (found.length >= max) return;
    if (!isJsonObject(block) || block.type !== 'tool_result') continue;
    if (typeof block.tool_use_id !== 'string') continue;
    found.push({ id: block.tool_use_id, content: block.content, isError: block.is_error === true });
  }
}

/**
 * The canonical, redacted hash of a result's content. A result nested too deeply to walk (JSON
 * text of 100,000 nested arrays parses, but redacting or hashing it overflows the stack) is
 * the agent's business, not a reason to refuse its request: JSON text is then hashed as the
 * string it is, anything else as a marker.
 */
/**
 * A tool result's `result_hash` and the paths redacted before hashing: the content canonically
 * hashed, JSON text parsed, secret-looking keys redacted as arguments are. The MCP proxy hashes
 * a `tools/call` result with it too.
 */
export function hashToolResult(
  content: JsonValue | undefined,
  redact: ReadonlyArray<string>,
): { hash: Sha256Hash; redacted: string[] } {
  try {
    const { value, redacted } = redactValue(canonicalContent(content), redact);
    return { hash: hashLenient(value), redacted };
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    const text = typeof content === 'string' ? content : 'toolgate:result-too-deep';
    return { hash: hashLenient(text), redacted: [] };
  }
}

/**
 * A result's content as hashed: JSON text parsed (so key order and spacing never change the
 * hash, and secret keys inside it are redacted), other text as the string, a content array
 * (text and image blocks) as the array, absent content as the empty string.
 */
function canonicalContent(content: JsonValue | undefined): JsonValue {
  if (content === undefined) return '';
  if (typeof content !== 'string') return content;
  try {
    return JSON.parse(content) as JsonValue;
  } catch {
    return content;
  }
}

/**
 * The calls with the wanted ids in the assistant messages up to `from`, latest first (a
 * reused id names its latest call); stops as soon as every id is found.
 */
function echoedCalls(
  messages: ReadonlyArray<JsonValue>,
  from: number,
  wanted: Set<string>,
  anthropic: boolean,
): Map<string, EchoedCall> {
  const calls = new Map<string, EchoedCall>();
  for (let i = from; i >= 0 && calls.size < wanted.size; i--) {
    const message = messages[i];
    if (!isJsonObject(message) || message.role !== 'assistant') continue;
    const list = anthropic ? message.content : message.tool_calls;
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const call = anthropic ? anthropicCall(item) : openAICall(item);
      if (call === undefined || !wanted.has(call.id) || calls.has(call.id)) continue;
      calls.set(call.id, call);
    }
  }
  return calls;
}

function openAICall(item: JsonValue): (EchoedCall & { id: string }) | undefined {
  if (!isJsonObject(item) || typeof item.id !== 'string' || !isJsonObject(item.function)) {
    return undefined;
  }
  const { name, arguments: args } = item.function;
  return typeof name === 'string' ? { id: item.id, name, arguments: args } : undefined;
}

function anthropicCall(item: JsonValue): (EchoedCall & { id: string }) | undefined {
  if (!isJsonObject(item) || item.type !== 'tool_use' || typeof item.id !== 'string') {
    return undefined;
  }
  return typeof item.name === 'string'
    ? { id: item.id, name: item.name, arguments: item.input }
    : undefined;
}
