import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../json/json-value.ts';
import type { Surface } from '../resources/vocabulary.ts';
import { createStreamMediator, enforceResponseBody } from '../response/enforce-response.ts';
import { createSseParser } from '../stream/sse.ts';
import { createMemoryCallGate } from './call-gate.ts';
import type { RuleIdentity } from './identity-match.ts';
import { mediateRequest } from './mediate-request.ts';
import { GEMINI_MODEL, geminiDeclaration, geminiRequest } from './surfaces/gemini-fixtures.ts';
import {
  anthropicRequest,
  anthropicTool,
  bundleOf,
  openAIRequest,
  openAITool,
} from './test-fixtures.ts';

/**
 * Call-time rules on streams, as properties: for any turn (text, then calls the rules allow,
 * deny, defer or rate-limit) cut into any pieces, a withheld call never leaks a fragment, its
 * explanation arrives where the call was, the stream reassembles to what the non-streaming
 * enforcer makes of the same turn, and the decisions are the same every time.
 */

const RULES = [
  {
    id: 'pr-only-in-app',
    action: 'deny',
    match: { name: 'create_pull_request' },
    when: "args.repo != 'acme/app'",
    message: 'Pull requests may only be opened in acme/app.',
  },
  {
    id: 'external-mail',
    action: 'require_approval',
    match: { name: 'send_email' },
    when: "!args.to.endsWith('@acme.com')",
  },
  {
    id: 'search-budget',
    action: 'rate_limit',
    match: { name: 'web_search' },
    limit: { calls: 2, per: '1h' },
  },
] as const;
const TOOLS = ['create_pull_request', 'send_email', 'web_search', 'read_file'];
const ALICE: RuleIdentity = { human: 'alice', trusted: ['human', 'service'], binding: 'verified' };

interface Call {
  name: string;
  args: JsonObject;
}

/** Every argument value carries this marker and the call's position: a leak is findable. */
const call = fc.oneof(
  fc.record({ name: fc.constant('create_pull_request'), repo: fc.constantFrom('acme/app', 'x/y') }),
  fc.record({ name: fc.constant('send_email'), to: fc.constantFrom('a@acme.com', 'e@evil.io') }),
  fc.record({ name: fc.constant('web_search'), q: fc.constantFrom('a', 'b') }),
  fc.record({ name: fc.constant('read_file'), path: fc.constantFrom('/a', '/b') }),
);
const turn = fc.record({
  text: fc.constantFrom('', 'Let me do that.'),
  calls: fc.array(call, { minLength: 1, maxLength: 5 }).map((calls) =>
    calls.map(({ name, ...args }, i) => ({
      name,
      args: Object.fromEntries(Object.entries(args).map(([k, v]) => [k, `${v}`])),
      marker: `LEAK${i}Z`,
    })),
  ),
  cuts: fc.array(fc.nat(), { maxLength: 40 }),
});

function mediation(surface: Surface) {
  if (surface === 'gemini') {
    return mediateRequest(bundleOf({ rules: RULES as never }), {
      surface,
      body: geminiRequest(TOOLS.map((t) => geminiDeclaration(t))),
      target: { model: GEMINI_MODEL, stream: true },
      identity: ALICE,
      gate: createMemoryCallGate({ now: () => 0 }),
    });
  }
  const tools =
    surface === 'anthropic-messages'
      ? TOOLS.map((t) => anthropicTool(t))
      : TOOLS.map((t) => openAITool(t));
  const body =
    surface === 'anthropic-messages'
      ? anthropicRequest(tools)
      : surface === 'openai-responses'
        ? {
            model: 'gpt-4.1',
            input: 'go',
            tools: TOOLS.map((name) => ({ type: 'function', name })),
          }
        : openAIRequest(tools);
  return mediateRequest(bundleOf({ rules: RULES as never }), {
    surface,
    body,
    identity: ALICE,
    gate: createMemoryCallGate({ now: () => 0 }),
  });
}

const argsText = (c: Call & { marker: string }) => JSON.stringify({ ...c.args, marker: c.marker });

function openAIStream(text: string, calls: ReadonlyArray<Call & { marker: string }>): string {
  const chunk = (delta: JsonObject, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  let out = chunk({ role: 'assistant', content: '' });
  if (text) out += chunk({ content: text });
  calls.forEach((c, i) => {
    const args = argsText(c);
    const half = Math.floor(args.length / 2);
    out += chunk({
      tool_calls: [
        {
          index: i,
          id: `call_${i}`,
          type: 'function',
          function: { name: c.name, arguments: args.slice(0, half) },
        },
      ],
    });
    out += chunk({ tool_calls: [{ index: i, function: { arguments: args.slice(half) } }] });
  });
  return `${out}${chunk({}, 'tool_calls')}data: [DONE]\n\n`;
}

function openAIBody(text: string, calls: ReadonlyArray<Call & { marker: string }>) {
  return {
    id: 'c',
    object: 'chat.completion',
    model: 'm',
    choices: [
      {
        index: 0,
        finish_reason: 'tool_calls',
        message: {
          role: 'assistant',
          content: text === '' ? null : text,
          tool_calls: calls.map((c, i) => ({
            id: `call_${i}`,
            type: 'function',
            function: { name: c.name, arguments: argsText(c) },
          })),
        },
      },
    ],
  };
}

function anthropicStream(text: string, calls: ReadonlyArray<Call & { marker: string }>): string {
  const event = (type: string, data: JsonObject) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  let out = event('message_start', {
    message: { id: 'msg', type: 'message', role: 'assistant', model: 'm', content: [] },
  });
  let index = 0;
  if (text) {
    out += event('content_block_start', { index, content_block: { type: 'text', text: '' } });
    out += event('content_block_delta', { index, delta: { type: 'text_delta', text } });
    out += event('content_block_stop', { index });
    index++;
  }
  calls.forEach((c, i) => {
    const args = argsText(c);
    out += event('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: `toolu_${i}`, name: c.name, input: {} },
    });
    out += event('content_block_delta', {
      index,
      delta: { type: 'input_json_delta', partial_json: args },
    });
    out += event('content_block_stop', { index });
    index++;
  });
  return `${out}${event('message_delta', { delta: { stop_reason: 'tool_use' } })}${event('message_stop', {})}`;
}

function anthropicBody(text: string, calls: ReadonlyArray<Call & { marker: string }>) {
  return {
    id: 'msg',
    type: 'message',
    role: 'assistant',
    model: 'm',
    stop_reason: 'tool_use',
    content: [
      ...(text ? [{ type: 'text', text }] : []),
      ...calls.map((c, i) => ({
        type: 'tool_use',
        id: `toolu_${i}`,
        name: c.name,
        input: JSON.parse(argsText(c)),
      })),
    ],
  };
}

function responsesBody(text: string, calls: ReadonlyArray<Call & { marker: string }>) {
  const message = {
    id: 'msg_0',
    type: 'message',
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
  return {
    id: 'resp',
    object: 'response',
    status: 'completed',
    output: [
      ...(text ? [message] : []),
      ...calls.map((c, i) => ({
        id: `fc_${i}`,
        type: 'function_call',
        status: 'completed',
        call_id: `call_${i}`,
        name: c.name,
        arguments: argsText(c),
      })),
    ] as JsonObject[],
  };
}

/** The Responses event stream of the same turn: each item added, its deltas, done; completed. */
function responsesStream(text: string, calls: ReadonlyArray<Call & { marker: string }>): string {
  const body = responsesBody(text, calls);
  const events: JsonObject[] = [
    { type: 'response.created', response: { ...body, status: 'in_progress', output: [] } },
  ];
  body.output.forEach((item, index) => {
    const at = { item_id: String(item.id), output_index: index };
    if (item.type === 'message') {
      const part = { type: 'output_text', text: '', annotations: [] };
      events.push(
        { type: 'response.output_item.added', output_index: index, item: { ...item, content: [] } },
        { type: 'response.content_part.added', ...at, content_index: 0, part },
        { type: 'response.output_text.delta', ...at, content_index: 0, delta: text },
        { type: 'response.content_part.done', ...at, content_index: 0, part: { ...part, text } },
      );
    } else {
      const args = String(item.arguments);
      const half = Math.floor(args.length / 2);
      events.push(
        {
          type: 'response.output_item.added',
          output_index: index,
          item: { ...item, arguments: '' },
        },
        { type: 'response.function_call_arguments.delta', ...at, delta: args.slice(0, half) },
        { type: 'response.function_call_arguments.delta', ...at, delta: args.slice(half) },
        { type: 'response.function_call_arguments.done', ...at, arguments: args },
      );
    }
    events.push({ type: 'response.output_item.done', output_index: index, item });
  });
  events.push({ type: 'response.completed', response: body });
  return events
    .map(
      (e, i) =>
        `event: ${String(e.type)}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`,
    )
    .join('');
}

type Marked = ReadonlyArray<Call & { marker: string }>;

/** Gemini's parts for the turn: the text, then one `functionCall` part per call (no ids). */
function geminiParts(text: string, calls: Marked): JsonObject[] {
  return [
    ...(text ? [{ text }] : []),
    ...calls.map((c) => ({ functionCall: { name: c.name, args: JSON.parse(argsText(c)) } })),
  ];
}

interface GeminiChunk {
  candidates: Array<{ content: { parts: JsonObject[] }; finishReason?: string }>;
}

function geminiChunk(parts: JsonObject[], last: boolean): GeminiChunk & JsonObject {
  const candidate = { content: { role: 'model', parts }, index: 0 };
  return {
    candidates: [last ? { ...candidate, finishReason: 'STOP' } : candidate],
    usageMetadata: { promptTokenCount: 3, totalTokenCount: 9 },
    modelVersion: GEMINI_MODEL,
  };
}

function geminiBody(text: string, calls: Marked) {
  return geminiChunk(geminiParts(text, calls), true);
}

/**
 * The `streamGenerateContent?alt=sse` stream of the same turn: each part whole in a chunk of
 * its own (Gemini never splits a call), the last chunk carrying `finishReason`.
 */
function geminiStream(text: string, calls: Marked): string {
  const parts = geminiParts(text, calls);
  return parts
    .map((part, i) => `data: ${JSON.stringify(geminiChunk([part], i === parts.length - 1))}\n\n`)
    .join('');
}

/** The parts and finish reason the `@google/genai` SDK collects from a stream's chunks. */
function accumulateGemini(output: string) {
  const parts: JsonObject[] = [];
  let finish: unknown;
  for (const event of createSseParser().push(output)) {
    const [candidate] = (JSON.parse(event.data) as GeminiChunk).candidates;
    parts.push(...(candidate?.content.parts ?? []));
    if (candidate?.finishReason !== undefined) finish = candidate.finishReason;
  }
  return { parts, finish };
}

/** The output an SDK's Responses accumulator ends with: `response.completed`'s, checked against the items streamed. */
function accumulateResponses(output: string) {
  const items: JsonObject[] = [];
  let completed: JsonObject[] = [];
  for (const event of createSseParser().push(output)) {
    const data = JSON.parse(event.data) as JsonObject;
    if (data.type === 'response.output_item.added') {
      expect(data.output_index).toBe(items.length);
      items.push(data.item as JsonObject);
    }
    if (data.type === 'response.output_item.done')
      items[data.output_index as number] = data.item as JsonObject;
    if (data.type === 'response.completed')
      completed = (data.response as { output: JsonObject[] }).output;
  }
  expect(completed).toEqual(items);
  return completed;
}

/** What an SDK's accumulator makes of an OpenAI stream: content, calls, finish reason. */
function accumulateOpenAI(output: string) {
  let content: string | null = null;
  const calls: JsonObject[] = [];
  let finish: unknown = null;
  for (const event of createSseParser().push(output)) {
    if (event.data.startsWith('[DONE]')) break;
    const choice = (JSON.parse(event.data) as { choices: JsonObject[] }).choices[0];
    if (!choice) continue;
    const delta = choice.delta as JsonObject;
    if (typeof delta.content === 'string' && delta.content !== '')
      content = `${content ?? ''}${delta.content}`;
    for (const fragment of (delta.tool_calls ?? []) as JsonObject[])
      calls[fragment.index as number] = fragment;
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  return { content, calls, finish };
}

/** The content blocks of an Anthropic stream, as the SDK's accumulator builds them. */
function accumulateAnthropic(output: string) {
  const blocks: JsonObject[] = [];
  let stop: unknown;
  for (const event of createSseParser().push(output)) {
    const data = JSON.parse(event.data) as JsonObject;
    if (data.type === 'content_block_start')
      blocks[data.index as number] = { ...(data.content_block as JsonObject) };
    if (data.type === 'content_block_delta') {
      const block = blocks[data.index as number] as JsonObject;
      const delta = data.delta as JsonObject;
      if (delta.type === 'text_delta') block.text = `${block.text}${delta.text}`;
      if (delta.type === 'input_json_delta') block.input = JSON.parse(delta.partial_json as string);
    }
    if (data.type === 'message_delta') stop = (data.delta as JsonObject).stop_reason;
  }
  return { blocks, stop };
}

function pieces(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const point of points) {
    out.push(text.slice(from, point));
    from = point;
  }
  out.push(text.slice(from));
  return out;
}

function stream(surface: Surface, upstream: string, cuts: number[]) {
  const mediator = createStreamMediator(mediation(surface).response);
  const output =
    pieces(upstream, cuts)
      .map((p) => mediator.push(p))
      .join('') + mediator.end();
  return { output, evidence: mediator.evidence() };
}

describe('call-time rules on streams', () => {
  const shapes = {
    'openai-chat': { stream: openAIStream, body: openAIBody },
    'anthropic-messages': { stream: anthropicStream, body: anthropicBody },
    'openai-responses': { stream: responsesStream, body: responsesBody },
    gemini: { stream: geminiStream, body: geminiBody },
  };
  for (const surface of [
    'openai-chat',
    'anthropic-messages',
    'openai-responses',
    'gemini',
  ] as const) {
    it(`${surface}: no withheld fragment leaks; the stream reassembles to the enforced body`, () => {
      fc.assert(
        fc.property(turn, ({ text, calls, cuts }) => {
          const upstream = shapes[surface].stream(text, calls);
          const body = shapes[surface].body(text, calls);
          const streamed = stream(surface, upstream, cuts);
          const enforced = enforceResponseBody(body, mediation(surface).response);
          // Decisions: deterministic, and the same streamed or not.
          expect(streamed.evidence.tool_calls).toEqual(enforced.evidence.tool_calls);
          expect(stream(surface, upstream, []).evidence).toEqual(streamed.evidence);
          streamed.evidence.tool_calls.forEach((evidence, i) => {
            const marker = calls[i]?.marker as string;
            if (evidence.policy_state === 'allowed') expect(streamed.output).toContain(marker);
            else expect(streamed.output).not.toContain(marker);
            if (evidence.policy_state !== 'allowed') {
              expect(evidence.decision?.message).toBeDefined();
            }
          });
          if (surface === 'openai-chat') {
            const got = accumulateOpenAI(streamed.output);
            const want = (enforced.body as ReturnType<typeof openAIBody>).choices[0];
            expect(got.content).toEqual(
              want?.message.content === '' ? null : want?.message.content,
            );
            expect(got.finish).toBe(want?.finish_reason);
            expect(got.calls.map((c) => c.id)).toEqual(
              (want?.message.tool_calls ?? []).map((c) => c.id),
            );
          } else if (surface === 'gemini') {
            const got = accumulateGemini(streamed.output);
            const want = (enforced.body as GeminiChunk).candidates[0];
            expect(got.parts).toEqual(want?.content.parts);
            expect(got.finish).toBe('STOP');
          } else if (surface === 'openai-responses') {
            const want = enforced.body as ReturnType<typeof responsesBody>;
            expect(accumulateResponses(streamed.output)).toEqual(want.output);
          } else {
            const got = accumulateAnthropic(streamed.output);
            const want = enforced.body as ReturnType<typeof anthropicBody>;
            expect(got.blocks).toEqual(want.content);
            expect(got.stop).toBe(want.stop_reason);
          }
        }),
        { numRuns: 150 },
      );
    });
  }
});
