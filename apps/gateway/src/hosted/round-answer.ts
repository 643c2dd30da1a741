import {
  createSseParser,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type ProviderSurface,
  parseArguments,
} from '@toolgate/core';

/**
 * One provider answer of the tool loop, read whole (JSON, or the SSE stream collected): the
 * calls the model made, its text, the usage it reported, and its turn in the provider's own
 * shape, to be appended to the conversation (round-conversation.ts).
 */
export interface RoundCall {
  id: string;
  /** The name the model called (the provider-facing name). */
  name: string;
  arguments: JsonValue;
  /** The arguments exactly as the provider wrote them (OpenAI: the JSON text). */
  rawArguments: JsonValue;
}

export interface RoundAnswer {
  calls: RoundCall[];
  text: string;
  usage?: { input_tokens?: number; output_tokens?: number };
  /**
   * The model's turn: OpenAI Chat's `message`; Anthropic's content blocks; Responses' output
   * items; Gemini's parts.
   */
  turn: JsonObject | JsonValue[];
}

/** Reads an answer; undefined when it is not one the loop can read (then it goes to the agent). */
export function readAnswer(
  surface: ProviderSurface,
  text: string,
  streamed: boolean,
): RoundAnswer | undefined {
  try {
    if (!streamed) {
      const body: unknown = JSON.parse(text);
      return isJsonObject(body as JsonValue) ? READ_JSON[surface](body as JsonObject) : undefined;
    }
    return COLLECT[surface](events(text));
  } catch {
    return undefined;
  }
}

function events(text: string): { event?: string; data: JsonObject }[] {
  const parser = createSseParser();
  const out: { event?: string; data: JsonObject }[] = [];
  for (const event of [...parser.push(text), ...parser.end()]) {
    if (event.comment !== undefined || event.data === '' || event.data === '[DONE]') continue;
    const data: unknown = JSON.parse(event.data);
    if (isJsonObject(data as JsonValue)) {
      out.push({ ...(event.event ? { event: event.event } : {}), data: data as JsonObject });
    }
  }
  return out;
}

const obj = (value: JsonValue | undefined): JsonObject =>
  isJsonObject(value as JsonValue) ? (value as JsonObject) : {};
const arr = (value: JsonValue | undefined): JsonValue[] => (Array.isArray(value) ? value : []);
const num = (value: JsonValue | undefined): number | undefined =>
  typeof value === 'number' ? value : undefined;
const str = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : '');

function usageOf(input: number | undefined, output: number | undefined): RoundAnswer['usage'] {
  if (input === undefined && output === undefined) return undefined;
  return {
    ...(input !== undefined ? { input_tokens: input } : {}),
    ...(output !== undefined ? { output_tokens: output } : {}),
  };
}

function withUsage(answer: Omit<RoundAnswer, 'usage'>, usage: RoundAnswer['usage']): RoundAnswer {
  return usage ? { ...answer, usage } : answer;
}

// --- OpenAI Chat Completions ---

function chatMessage(message: JsonObject, usage: JsonObject): RoundAnswer {
  const calls = arr(message.tool_calls).map((c) => {
    const call = obj(c);
    const fn = obj(call.function);
    const raw = fn.arguments ?? '';
    return {
      id: str(call.id),
      name: str(fn.name),
      arguments: parseArguments(raw),
      rawArguments: raw,
    };
  });
  return withUsage(
    { calls, text: str(message.content), turn: message },
    usageOf(num(usage.prompt_tokens), num(usage.completion_tokens)),
  );
}

function collectChat(list: { data: JsonObject }[]): RoundAnswer {
  let content = '';
  const calls: { id: string; name: string; arguments: string }[] = [];
  let usage: JsonObject = {};
  for (const { data } of list) {
    if (isJsonObject(data.usage as JsonValue)) usage = data.usage as JsonObject;
    const delta = obj(obj(arr(data.choices)[0]).delta);
    content += str(delta.content);
    for (const c of arr(delta.tool_calls)) {
      const call = obj(c);
      const index = num(call.index) ?? 0;
      const fn = obj(call.function);
      const known = calls[index] ?? { id: '', name: '', arguments: '' };
      calls[index] = known;
      if (typeof call.id === 'string') known.id = call.id;
      known.name += str(fn.name);
      known.arguments += str(fn.arguments);
    }
  }
  const message: JsonObject = { role: 'assistant', content: content === '' ? null : content };
  const toolCalls = calls.filter(Boolean);
  if (toolCalls.length > 0) {
    message.tool_calls = toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  return chatMessage(message, usage);
}

// --- Anthropic Messages ---

function anthropicContent(content: JsonValue[], usage: RoundAnswer['usage']): RoundAnswer {
  const calls: RoundCall[] = [];
  let text = '';
  for (const b of content) {
    const block = obj(b);
    if (block.type === 'text') text += str(block.text);
    if (block.type === 'tool_use') {
      const input = block.input ?? {};
      calls.push({
        id: str(block.id),
        name: str(block.name),
        arguments: input,
        rawArguments: input,
      });
    }
  }
  return withUsage({ calls, text, turn: content }, usage);
}

function collectAnthropic(list: { data: JsonObject }[]): RoundAnswer {
  const blocks: JsonObject[] = [];
  const partial = new Map<number, string>();
  let input: number | undefined;
  let output: number | undefined;
  for (const { data } of list) {
    const index = num(data.index) ?? 0;
    switch (data.type) {
      case 'message_start':
        input = num(obj(obj(data.message).usage).input_tokens);
        break;
      case 'content_block_start':
        blocks[index] = { ...obj(data.content_block) };
        break;
      case 'content_block_delta': {
        const block = blocks[index];
        const delta = obj(data.delta);
        if (block === undefined) break;
        if (delta.type === 'text_delta') block.text = str(block.text) + str(delta.text);
        else if (delta.type === 'input_json_delta') {
          partial.set(index, (partial.get(index) ?? '') + str(delta.partial_json));
        } else if (delta.type === 'thinking_delta') {
          block.thinking = str(block.thinking) + str(delta.thinking);
        } else if (delta.type === 'signature_delta') block.signature = str(delta.signature);
        break;
      }
      case 'content_block_stop': {
        const block = blocks[index];
        const json = partial.get(index);
        if (block !== undefined && json !== undefined) {
          block.input = json.trim() === '' ? {} : (JSON.parse(json) as JsonValue);
        }
        break;
      }
      case 'message_delta':
        output = num(obj(data.usage).output_tokens) ?? output;
        break;
    }
  }
  return anthropicContent(blocks.filter(Boolean), usageOf(input, output));
}

// --- OpenAI Responses ---

function responsesOutput(response: JsonObject): RoundAnswer {
  const output = arr(response.output);
  const calls: RoundCall[] = [];
  let text = '';
  for (const i of output) {
    const item = obj(i);
    if (item.type === 'function_call') {
      const raw = item.arguments ?? '';
      calls.push({
        id: str(item.call_id),
        name: str(item.name),
        arguments: parseArguments(raw),
        rawArguments: raw,
      });
    } else if (item.type === 'message') {
      for (const part of arr(item.content)) {
        if (obj(part).type === 'output_text') text += str(obj(part).text);
      }
    }
  }
  const usage = obj(response.usage);
  return withUsage(
    { calls, text, turn: output },
    usageOf(num(usage.input_tokens), num(usage.output_tokens)),
  );
}

function collectResponses(list: { data: JsonObject }[]): RoundAnswer | undefined {
  const done = list.find(
    ({ data }) => data.type === 'response.completed' || data.type === 'response.incomplete',
  );
  return done ? responsesOutput(obj(done.data.response)) : undefined;
}

// --- Gemini ---

function geminiParts(parts: JsonValue[], usage: JsonObject): RoundAnswer {
  const calls: RoundCall[] = [];
  let text = '';
  parts.forEach((p, index) => {
    const part = obj(p);
    if (typeof part.text === 'string' && part.thought !== true) text += part.text;
    if (isJsonObject(part.functionCall as JsonValue)) {
      const call = part.functionCall as JsonObject;
      const args = call.args ?? {};
      calls.push({
        // Gemini 2.x names no id: the loop matches results by position and name.
        id: typeof call.id === 'string' ? call.id : `gemini-call-${index}`,
        name: str(call.name),
        arguments: args,
        rawArguments: args,
      });
    }
  });
  return withUsage(
    { calls, text, turn: parts },
    usageOf(num(usage.promptTokenCount), num(usage.candidatesTokenCount)),
  );
}

function geminiChunk(chunk: JsonObject): JsonValue[] {
  return arr(obj(obj(arr(chunk.candidates)[0]).content).parts);
}

function collectGemini(list: { data: JsonObject }[]): RoundAnswer {
  const parts: JsonValue[] = [];
  let usage: JsonObject = {};
  for (const { data } of list) {
    parts.push(...geminiChunk(data));
    if (isJsonObject(data.usageMetadata as JsonValue)) usage = data.usageMetadata as JsonObject;
  }
  return geminiParts(parts, usage);
}

const READ_JSON: Record<ProviderSurface, (body: JsonObject) => RoundAnswer | undefined> = {
  'openai-chat': (body) => {
    const message = obj(arr(body.choices)[0]).message;
    return isJsonObject(message as JsonValue)
      ? chatMessage(message as JsonObject, obj(body.usage))
      : undefined;
  },
  'anthropic-messages': (body) => {
    const usage = obj(body.usage);
    return anthropicContent(
      arr(body.content),
      usageOf(num(usage.input_tokens), num(usage.output_tokens)),
    );
  },
  'openai-responses': responsesOutput,
  gemini: (body) => geminiParts(geminiChunk(body), obj(body.usageMetadata)),
};

const COLLECT: Record<
  ProviderSurface,
  (list: { event?: string; data: JsonObject }[]) => RoundAnswer | undefined
> = {
  'openai-chat': collectChat,
  'anthropic-messages': collectAnthropic,
  'openai-responses': collectResponses,
  gemini: collectGemini,
};
