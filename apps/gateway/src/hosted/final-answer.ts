import {
  createSseParser,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type ProviderSurface,
  type SseEvent,
  serializeSse,
} from '@toolgate/core';

/**
 * The last answer of a tool loop as the agent gets it (before the usual response-side
 * enforcement): Responses' echo of the request's `tools` loses the gateway's hosted tools (the
 * agent never declared them), and with `showHostedText` the text the model wrote in hosted
 * rounds comes first, as text of the answer's own kind: OpenAI Chat content, an Anthropic text
 * block, a Gemini text part, a Responses message item. Indices of later blocks and items (and
 * Responses' sequence numbers) move with it.
 */
export function finalAnswer(
  surface: ProviderSurface,
  text: string,
  streamed: boolean,
  hosted: ReadonlySet<string>,
  hostedText: string,
): string {
  const shown = hostedText.trim();
  const scrub = surface === 'openai-responses';
  if (!scrub && shown === '') return text;
  try {
    if (!streamed) {
      const body = JSON.parse(text) as JsonObject;
      if (scrub) scrubTools(body, hosted);
      if (shown !== '') prependJson(surface, body, shown);
      return JSON.stringify(body);
    }
    return rewriteStream(surface, text, hosted, scrub, shown);
  } catch {
    return text; // not readable: left as the provider sent it
  }
}

const obj = (value: JsonValue | undefined): JsonObject =>
  isJsonObject(value as JsonValue) ? (value as JsonObject) : {};

function scrubTools(response: JsonObject, hosted: ReadonlySet<string>): void {
  if (!Array.isArray(response.tools)) return;
  response.tools = response.tools.filter((t) => !hosted.has(String(obj(t).name)));
}

function prependJson(surface: ProviderSurface, body: JsonObject, text: string): void {
  switch (surface) {
    case 'openai-chat': {
      const message = obj(obj((body.choices as JsonValue[] | undefined)?.[0]).message);
      const content = typeof message.content === 'string' ? message.content : '';
      message.content = content === '' ? text : `${text}\n\n${content}`;
      return;
    }
    case 'anthropic-messages':
      body.content = [{ type: 'text', text }, ...((body.content as JsonValue[]) ?? [])];
      return;
    case 'openai-responses':
      body.output = [hostedMessage(text), ...((body.output as JsonValue[]) ?? [])];
      return;
    case 'gemini': {
      const content = obj(obj((body.candidates as JsonValue[] | undefined)?.[0]).content);
      content.parts = [{ text }, ...((content.parts as JsonValue[]) ?? [])];
      return;
    }
  }
}

function hostedMessage(text: string): JsonObject {
  return {
    type: 'message',
    id: 'msg_toolgate_hosted',
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
}

function rewriteStream(
  surface: ProviderSurface,
  text: string,
  hosted: ReadonlySet<string>,
  scrub: boolean,
  shown: string,
): string {
  const parser = createSseParser();
  const events = [...parser.push(text), ...parser.end()];
  const out: SseEvent[] = [];
  let injected = shown === '' || surface === 'openai-responses';
  const responses = surface === 'openai-responses' && shown !== '';
  let responsesInjected = false;
  for (const event of events) {
    const data = parseData(event);
    if (data === undefined) {
      out.push(event);
      continue;
    }
    if (scrub && isJsonObject(data.response as JsonValue)) {
      scrubTools(data.response as JsonObject, hosted);
    }
    if (!injected && surface === 'openai-chat') {
      out.push(jsonEvent(event, chatChunk(data, shown)));
      injected = true;
    } else if (!injected && surface === 'gemini') {
      out.push(
        jsonEvent(event, {
          candidates: [{ content: { role: 'model', parts: [{ text: shown }] }, index: 0 }],
        }),
      );
      injected = true;
    }
    if (responses) {
      if (typeof data.output_index === 'number') data.output_index += 1;
      const done = data.type === 'response.completed' || data.type === 'response.incomplete';
      if (done && isJsonObject(data.response as JsonValue)) {
        const response = data.response as JsonObject;
        response.output = [hostedMessage(shown), ...((response.output as JsonValue[]) ?? [])];
      }
      if (!responsesInjected && (data.type === 'response.output_item.added' || done)) {
        out.push(...responsesText(shown));
        responsesInjected = true;
      }
      out.push(jsonEvent(event, data));
      continue;
    }
    if (surface === 'anthropic-messages' && shown !== '') {
      if (typeof data.index === 'number' && String(data.type).startsWith('content_block')) {
        data.index += 1;
      }
      out.push(jsonEvent(event, data));
      if (data.type === 'message_start') out.push(...anthropicText(shown));
      continue;
    }
    out.push(jsonEvent(event, data));
  }
  if (responses) renumber(out);
  return out.map(serializeSse).join('');
}

/** Responses' `sequence_number`s, consecutive again after events were inserted. */
function renumber(events: SseEvent[]): void {
  let next: number | undefined;
  events.forEach((event, index) => {
    const data = parseData(event);
    if (data === undefined || typeof data.sequence_number !== 'number') return;
    next ??= data.sequence_number - index;
    data.sequence_number = next + index;
    events[index] = jsonEvent(event, data);
  });
}

/** The hosted text as a Responses message item at output index 0, event by event. */
function responsesText(text: string): SseEvent[] {
  const item = hostedMessage(text);
  const at = { item_id: item.id as string, output_index: 0, content_index: 0 };
  const part = { type: 'output_text', annotations: [], text };
  const events: JsonObject[] = [
    {
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...item, status: 'in_progress', content: [] },
    },
    { type: 'response.content_part.added', ...at, part: { ...part, text: '' } },
    { type: 'response.output_text.delta', ...at, delta: text },
    { type: 'response.output_text.done', ...at, text },
    { type: 'response.content_part.done', ...at, part },
    { type: 'response.output_item.done', output_index: 0, item },
  ];
  return events.map((e) => ({
    event: String(e.type),
    data: JSON.stringify({ ...e, sequence_number: 0 }),
  }));
}

function parseData(event: SseEvent): JsonObject | undefined {
  if (event.comment !== undefined || event.data === '' || event.data === '[DONE]') return undefined;
  const data: unknown = JSON.parse(event.data);
  return isJsonObject(data as JsonValue) ? (data as JsonObject) : undefined;
}

function jsonEvent(like: SseEvent, data: JsonValue): SseEvent {
  return { ...(like.event !== undefined ? { event: like.event } : {}), data: JSON.stringify(data) };
}

function chatChunk(first: JsonObject, text: string): JsonObject {
  return {
    id: first.id ?? 'chatcmpl-toolgate',
    object: 'chat.completion.chunk',
    created: first.created ?? 0,
    model: first.model ?? '',
    choices: [
      { index: 0, delta: { role: 'assistant', content: `${text}\n\n` }, finish_reason: null },
    ],
  };
}

function anthropicText(text: string): SseEvent[] {
  const events: JsonObject[] = [
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
    { type: 'content_block_stop', index: 0 },
  ];
  return events.map((e) => ({ event: String(e.type), data: JSON.stringify(e) }));
}
