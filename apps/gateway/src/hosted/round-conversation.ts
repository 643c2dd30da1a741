import {
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type ProviderSurface,
} from '@toolgate/core';
import type { RoundAnswer, RoundCall } from './round-answer.ts';

/** A hosted call and what the model is told of it. */
export interface RoundResult {
  call: RoundCall;
  content: string;
  isError: boolean;
}

/**
 * The provider request of the next round: the previous one with the model's turn and the hosted
 * calls' results appended in the provider's own protocol shape, matched by call id — OpenAI Chat
 * `tool_calls` + `tool` messages, Anthropic `tool_use` + `tool_result` blocks, Responses
 * `function_call` + `function_call_output` items, Gemini `functionCall` + `functionResponse`
 * parts. Never flattened into user text.
 *
 * A mixed turn (hosted calls and the agent's own in one answer): the agent's calls are left out
 * of the appended turn, so the conversation holds no call without its result; the model sees
 * the hosted results and asks for the agent's tools again in a later turn if it still needs them.
 */
export function nextRequest(
  surface: ProviderSurface,
  body: JsonObject,
  answer: RoundAnswer,
  results: ReadonlyArray<RoundResult>,
): JsonObject {
  const hosted = new Set(results.map((r) => r.call.id));
  return APPEND[surface](body, answer, hosted, results);
}

const list = (value: JsonValue | undefined): JsonValue[] => (Array.isArray(value) ? value : []);
const obj = (value: JsonValue | undefined): JsonObject =>
  isJsonObject(value as JsonValue) ? (value as JsonObject) : {};

type Append = (
  body: JsonObject,
  answer: RoundAnswer,
  hosted: ReadonlySet<string>,
  results: ReadonlyArray<RoundResult>,
) => JsonObject;

const chat: Append = (body, answer, hosted, results) => {
  const message = obj(answer.turn as JsonValue);
  const calls = list(message.tool_calls).filter((c) => hosted.has(String(obj(c).id)));
  const assistant: JsonObject = {
    role: 'assistant',
    content: typeof message.content === 'string' && message.content !== '' ? message.content : null,
    tool_calls: calls,
  };
  const tools = results.map((r) => ({ role: 'tool', tool_call_id: r.call.id, content: r.content }));
  return { ...body, messages: [...list(body.messages), assistant, ...tools] };
};

const anthropic: Append = (body, answer, hosted, results) => {
  const content = list(answer.turn as JsonValue).filter((b) => {
    const block = obj(b);
    return block.type !== 'tool_use' || hosted.has(String(block.id));
  });
  const user = {
    role: 'user',
    content: results.map((r) => ({
      type: 'tool_result',
      tool_use_id: r.call.id,
      content: r.content,
      ...(r.isError ? { is_error: true } : {}),
    })),
  };
  return {
    ...body,
    messages: [...list(body.messages), { role: 'assistant', content }, user],
  };
};

const responses: Append = (body, answer, hosted, results) => {
  const input =
    typeof body.input === 'string'
      ? [{ role: 'user', content: body.input }]
      : list(body.input as JsonValue);
  const items = list(answer.turn as JsonValue).filter((i) => {
    const item = obj(i);
    return item.type !== 'function_call' || hosted.has(String(item.call_id));
  });
  const outputs = results.map((r) => ({
    type: 'function_call_output',
    call_id: r.call.id,
    output: r.content,
  }));
  return { ...body, input: [...input, ...items, ...outputs] };
};

const gemini: Append = (body, answer, hosted, results) => {
  const ids = new Set(hosted);
  const parts = list(answer.turn as JsonValue).filter((p, index) => {
    const call = obj(p).functionCall;
    if (!isJsonObject(call as JsonValue)) return true;
    const id = (call as JsonObject).id;
    return ids.has(typeof id === 'string' ? id : `gemini-call-${index}`);
  });
  const responsesParts = results.map((r): JsonObject => {
    const response: JsonObject = r.isError ? { error: r.content } : { output: r.content };
    const part: JsonObject = { name: r.call.name, response };
    // An id the loop made up (Gemini 2.x sends none) is not the provider's: not sent back.
    if (!r.call.id.startsWith('gemini-call-')) part.id = r.call.id;
    return { functionResponse: part };
  });
  return {
    ...body,
    contents: [
      ...list(body.contents),
      { role: 'model', parts },
      { role: 'user', parts: responsesParts },
    ],
  };
};

const APPEND: Record<ProviderSurface, Append> = {
  'openai-chat': chat,
  'anthropic-messages': anthropic,
  'openai-responses': responses,
  gemini,
};
