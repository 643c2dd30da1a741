import { isJsonObject, type JsonObject, type JsonValue } from '../../json/json-value.ts';
import { RECEIPT_LIMITS } from '../../receipt/receipt-limits.ts';
import type { ActionIdentity } from '../action.ts';
import type { CompiledBundle } from '../compile-bundle.ts';
import { type HistoryCall, MAX_HISTORY_CALLS } from '../rule-condition.ts';
import {
  type EchoedCall,
  type FoundToolResult,
  NO_TOOL_RESULTS,
  type ToolResults,
  toolResultEvidence,
} from '../tool-results.ts';

/**
 * A Gemini conversation's history as the engine reads it: `contents[]` of `role: "model"` turns
 * holding `functionCall` parts and the turns after them holding `functionResponse` parts.
 */

/** A `functionCall` part of a model turn: the agent-facing name, its arguments, its id if any. */
interface GeminiCall extends EchoedCall {
  id: string | undefined;
}

/** The calls made earlier in the conversation (every `functionCall` part), for `history`. */
export function readGeminiHistory(body: JsonObject): HistoryCall[] {
  const calls: HistoryCall[] = [];
  for (const content of contentsOf(body)) {
    for (const call of callsOf(content)) calls.push({ name: call.name, args: call.arguments });
  }
  return calls.slice(-MAX_HISTORY_CALLS);
}

/**
 * The `functionResponse` parts after the last model turn: the results of the calls it made,
 * hashed canonically. A response is linked to its call by `id` when it carries one (the latest
 * model turn holding a call with that id), else by name and order within the last model turn
 * (the second `get_weather` response answers its second `get_weather` call), as Gemini pairs
 * them. `tool_call_id` is the response's id, else its call's, else empty: Gemini's API rarely
 * gives calls an id, and the action id links a result to its call either way.
 */
export function readGeminiToolResults(
  bundle: Pick<CompiledBundle, 'metaTools' | 'redact'>,
  body: JsonObject,
  identity: ActionIdentity | undefined,
): ToolResults {
  const contents = contentsOf(body);
  let lastModel = contents.length - 1;
  while (lastModel >= 0 && !isModelTurn(contents[lastModel])) lastModel--;
  const found: Array<FoundToolResult & { name: string | undefined }> = [];
  // One more than a receipt records, to know whether any were left out.
  const max = RECEIPT_LIMITS.toolResults + 1;
  for (let i = lastModel + 1; i < contents.length && found.length < max; i++) {
    for (const part of partsOf(contents[i])) {
      if (found.length >= max) break;
      const response = isJsonObject(part) ? part.functionResponse : undefined;
      if (!isJsonObject(response)) continue;
      found.push({
        id: typeof response.id === 'string' ? response.id : '',
        name: typeof response.name === 'string' ? response.name : undefined,
        content: response.response,
        // Gemini's convention: `{error: …}` reports a failure, `{output: …}` a result.
        isError: isJsonObject(response.response) && response.response.error !== undefined,
      });
    }
  }
  if (found.length === 0) return NO_TOOL_RESULTS;
  const kept = found.slice(0, RECEIPT_LIMITS.toolResults);
  const turn = lastModel >= 0 ? callsOf(contents[lastModel]) : [];
  const seenByName = new Map<string, number>();
  const entries = kept.map((result) => {
    let call: GeminiCall | undefined;
    if (result.id !== '') call = callById(contents, lastModel, result.id);
    else if (result.name !== undefined) {
      const nth = seenByName.get(result.name) ?? 0;
      seenByName.set(result.name, nth + 1);
      call = turn.filter((c) => c.name === result.name)[nth];
    }
    const id = result.id !== '' ? result.id : (call?.id ?? '');
    return toolResultEvidence({ ...result, id }, call, bundle, identity);
  });
  return { entries, truncated: found.length > kept.length };
}

/** The latest call with this id in the model turns up to `from`. */
function callById(
  contents: ReadonlyArray<JsonValue>,
  from: number,
  id: string,
): GeminiCall | undefined {
  for (let i = from; i >= 0; i--) {
    if (!isModelTurn(contents[i])) continue;
    const call = callsOf(contents[i]).findLast((c) => c.id === id);
    if (call !== undefined) return call;
  }
  return undefined;
}

function contentsOf(body: JsonObject): ReadonlyArray<JsonValue> {
  return Array.isArray(body.contents) ? body.contents : [];
}

function isModelTurn(content: JsonValue | undefined): boolean {
  return isJsonObject(content) && content.role === 'model';
}

function partsOf(content: JsonValue | undefined): ReadonlyArray<JsonValue> {
  return isJsonObject(content) && Array.isArray(content.parts) ? content.parts : [];
}

function callsOf(content: JsonValue | undefined): GeminiCall[] {
  const calls: GeminiCall[] = [];
  for (const part of partsOf(content)) {
    const call = isJsonObject(part) ? part.functionCall : undefined;
    if (!isJsonObject(call) || typeof call.name !== 'string') continue;
    calls.push({
      name: call.name,
      arguments: call.args ?? {},
      id: typeof call.id === 'string' ? call.id : undefined,
    });
  }
  return calls;
}
