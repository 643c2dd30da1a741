import { isJsonObject, type JsonObject, type JsonValue } from '../../json/json-value.ts';
import { RECEIPT_LIMITS } from '../../receipt/receipt-limits.ts';
import {
  isModelItem,
  isNamedCall,
  type ResponsesCall,
  type ResponsesResult,
  readCallItem,
  readResultItem,
} from '../../response/openai-responses-items.ts';
import type { ActionIdentity } from '../action.ts';
import type { CompiledBundle } from '../compile-bundle.ts';
import { type HistoryCall, MAX_HISTORY_CALLS } from '../rule-condition.ts';
import { NO_TOOL_RESULTS, type ToolResults, toolResultEvidence } from '../tool-results.ts';
import { nonEmptyString, type RequestProblems } from './request-fields.ts';

/**
 * The `input` of an OpenAI Responses request: a string, or the conversation's items as the
 * request carries them. With `previous_response_id` (or a `conversation`) the earlier items are
 * stored by the provider and the request holds only the new ones: everything read here is read
 * from what the request itself carries.
 */

/**
 * Checks the items the gateway reads or rewrites (calls and their outputs), naming the field
 * of each problem, and refuses items that would declare tools past the mediated `tools`
 * (`additional_tools`, a `tool_search_output` carrying tools).
 */
export function readResponsesInput(input: JsonValue | undefined, problems: RequestProblems): void {
  if (input === undefined || input === null || typeof input === 'string') return;
  if (!Array.isArray(input)) {
    problems.add('input', 'must be a string or an array of input items');
    return;
  }
  input.forEach((item, index) => {
    const at = `input[${index}]`;
    if (!isJsonObject(item)) {
      problems.add(at, 'must be an object');
      return;
    }
    switch (item.type) {
      case 'additional_tools':
        problems.add(
          at,
          'additional_tools items are not supported through Toolgate; declare tools in tools',
        );
        break;
      case 'tool_search_output':
        if (Array.isArray(item.tools) && item.tools.length > 0) {
          problems.add(
            `${at}.tools`,
            'tools loaded by a tool search are not supported through Toolgate; declare tools in tools',
          );
        }
        break;
      case 'function_call':
      case 'custom_tool_call':
        nonEmptyString(item.name, `${at}.name`, problems);
        requireCallId(item, at, problems);
        requireString(item, item.type === 'function_call' ? 'arguments' : 'input', at, problems);
        break;
      case 'function_call_output':
      case 'custom_tool_call_output':
        requireCallId(item, at, problems);
        if (typeof item.output !== 'string' && !Array.isArray(item.output)) {
          problems.add(`${at}.output`, 'must be a string or an array of content parts');
        }
        break;
      default:
        break;
    }
  });
}

function requireCallId(item: JsonObject, at: string, problems: RequestProblems): void {
  if (typeof item.call_id !== 'string' || item.call_id === '') {
    problems.add(
      `${at}.call_id`,
      item.call_id === undefined ? 'is required' : 'must be a non-empty string',
    );
  }
}

function requireString(item: JsonObject, key: string, at: string, problems: RequestProblems) {
  if (typeof item[key] !== 'string') {
    problems.add(`${at}.${key}`, item[key] === undefined ? 'is required' : 'must be a string');
  }
}

/** One input item with its call renamed for the provider (`function_call` names). */
export function renameInputItem(item: JsonValue, renames: ReadonlyMap<string, string>): JsonValue {
  if (!isJsonObject(item) || !isNamedCall(item) || typeof item.name !== 'string') return item;
  const renamed = renames.get(item.name);
  return renamed === undefined ? item : { ...item, name: renamed };
}

/** The calls in `input`, oldest first (the newest 256): what `history` is to a rule's `when:`. */
export function readResponsesHistory(body: JsonObject): HistoryCall[] {
  const calls: HistoryCall[] = [];
  if (!Array.isArray(body.input)) return calls;
  for (const item of body.input) {
    const call = isJsonObject(item) ? readCallItem(item) : undefined;
    if (call !== undefined) calls.push({ name: call.name, args: parsedArguments(call.args) });
  }
  return calls.slice(-MAX_HISTORY_CALLS);
}

/**
 * The results of earlier calls the agent sends back: `function_call_output` items (and the
 * outputs of the other calls the agent runs) after the model's last item, each linked to its
 * call by `call_id` among the items the request carries — after `previous_response_id` the call
 * is the provider's, and the result has no action id.
 */
export function readResponsesToolResults(
  bundle: Pick<CompiledBundle, 'metaTools' | 'redact'>,
  body: JsonObject,
  identity: ActionIdentity | undefined,
): ToolResults {
  const { results, callsFor } = readResponsesResults(body, RECEIPT_LIMITS.toolResults + 1);
  if (results.length === 0) return NO_TOOL_RESULTS;
  const kept = results.slice(0, RECEIPT_LIMITS.toolResults);
  const calls = callsFor(new Set(kept.map((r) => r.id)));
  const entries = kept.map((result) => {
    const call = calls.get(result.id);
    const echoed = call && { name: call.name, arguments: call.args };
    return toolResultEvidence(result, echoed, bundle, identity);
  });
  return { entries, truncated: results.length > kept.length };
}

/** JSON text arguments parsed, as conditions see them; anything else as it is. */
function parsedArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? null;
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

/**
 * The call results the agent added since the model's last item, in order (at most `max`), and
 * the calls of the conversation they answer, latest first, found by id among the items before.
 * After `previous_response_id` the calls are the provider's: a result then has no call here.
 */
function readResponsesResults(
  body: JsonObject,
  max: number,
): { results: ResponsesResult[]; callsFor(ids: ReadonlySet<string>): Map<string, ResponsesCall> } {
  const input = Array.isArray(body.input) ? body.input : [];
  let lastModel = input.length - 1;
  while (lastModel >= 0 && !isModelOutput(input[lastModel])) lastModel--;
  const results: ResponsesResult[] = [];
  for (let i = lastModel + 1; i < input.length && results.length < max; i++) {
    const item = input[i];
    const result = isJsonObject(item) ? readResultItem(item) : undefined;
    if (result !== undefined) results.push(result);
  }
  return {
    results,
    callsFor(ids) {
      const calls = new Map<string, ResponsesCall>();
      for (let i = lastModel; i >= 0 && calls.size < ids.size; i--) {
        const item = input[i];
        const call = isJsonObject(item) ? readCallItem(item) : undefined;
        if (call !== undefined && ids.has(call.id) && !calls.has(call.id)) calls.set(call.id, call);
      }
      return calls;
    },
  };
}

function isModelOutput(item: JsonValue | undefined): boolean {
  return isJsonObject(item) && isModelItem(item);
}
