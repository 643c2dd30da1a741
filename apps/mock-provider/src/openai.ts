import { z } from 'zod';
import { deriveId, estimateTokens } from './ids.ts';
import type { DeclaredTool, ReplyPlan } from './script.ts';
import { type SseEvent, splitFragments, splitText } from './sse.ts';

/** The part of a Chat Completions request the mock reads; everything else is accepted as is. */
export const ChatCompletionRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.looseObject({ role: z.string(), content: z.unknown().optional() })).min(1),
  tools: z
    .array(
      z.looseObject({
        type: z.string(),
        function: z
          .looseObject({ name: z.string(), parameters: z.unknown().optional() })
          .optional(),
        custom: z.looseObject({ name: z.string() }).optional(),
      }),
    )
    .nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

/** Per-request values that a real provider would generate. */
export interface OpenAIContext {
  requestHash: string;
  created: number;
  model: string;
  promptTokens: number;
}

export function declaredTools(request: ChatCompletionRequest): DeclaredTool[] {
  return (request.tools ?? []).map((tool) =>
    tool.type === 'function' && tool.function
      ? { name: tool.function.name, function: true, parameters: tool.function.parameters }
      : { name: tool.custom?.name ?? tool.type, function: false },
  );
}

/** The text of the last message when it is the user's; empty after a tool result. */
export function lastUserText(request: ChatCompletionRequest): string {
  const last = request.messages.at(-1);
  if (last?.role !== 'user') return '';
  if (typeof last.content === 'string') return last.content;
  if (!Array.isArray(last.content)) return '';
  return last.content
    .filter((part): part is { type: 'text'; text: string } => part?.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

export function completionTokens(plan: ReplyPlan): number {
  return estimateTokens(plan.text + JSON.stringify(plan.toolCalls));
}

function usage(plan: ReplyPlan, ctx: OpenAIContext) {
  const completion = completionTokens(plan);
  return {
    prompt_tokens: ctx.promptTokens,
    completion_tokens: completion,
    total_tokens: ctx.promptTokens + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/** A `url_citation` for each hosted search result the text cites (the whole text cites result 1). */
function annotations(plan: ReplyPlan) {
  const cited = plan.webSearch?.results[0];
  if (!cited) return [];
  return [
    {
      type: 'url_citation' as const,
      url_citation: {
        url: cited.url,
        title: cited.title,
        start_index: 0,
        end_index: plan.text.length,
      },
    },
  ];
}

function toolCalls(plan: ReplyPlan, ctx: OpenAIContext) {
  return plan.toolCalls.map((call, index) => ({
    id: deriveId('call_', ctx.requestHash, `call:${index}`),
    type: 'function' as const,
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
}

function envelope(ctx: OpenAIContext, object: 'chat.completion' | 'chat.completion.chunk') {
  return {
    id: deriveId('chatcmpl-', ctx.requestHash, 'completion'),
    object,
    created: ctx.created,
    model: ctx.model,
    service_tier: 'default',
    system_fingerprint: 'fp_mock',
  };
}

/** The non-streaming `chat.completion` body. */
export function chatCompletion(plan: ReplyPlan, ctx: OpenAIContext) {
  const calls = toolCalls(plan, ctx);
  return {
    ...envelope(ctx, 'chat.completion'),
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant' as const,
          content: plan.text || calls.length === 0 ? plan.text : null,
          refusal: null,
          annotations: annotations(plan),
          ...(calls.length ? { tool_calls: calls } : {}),
        },
        finish_reason: calls.length ? ('tool_calls' as const) : ('stop' as const),
        logprobs: null,
      },
    ],
    usage: usage(plan, ctx),
  };
}

/**
 * The `chat.completion.chunk` sequence OpenAI streams for the same reply: role first, content
 * word by word, each tool call's header then its argument fragments, the finish chunk, the usage
 * chunk when asked for, then `[DONE]`.
 */
export function chatCompletionEvents(
  plan: ReplyPlan,
  ctx: OpenAIContext,
  options: { includeUsage: boolean },
): SseEvent[] {
  const head = envelope(ctx, 'chat.completion.chunk');
  const withUsage = options.includeUsage ? { usage: null } : {};
  const chunk = (delta: object, finishReason: string | null = null) => ({
    data: {
      ...head,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...withUsage,
    },
  });

  const calls = toolCalls(plan, ctx);
  const headers = calls.map((call, index) => ({
    index,
    id: call.id,
    type: call.type,
    function: { name: call.function.name, arguments: '' },
  }));
  const fragments = calls.map((call, index) =>
    splitFragments(call.function.arguments).map((piece) =>
      chunk({ tool_calls: [{ index, function: { arguments: piece } }] }),
    ),
  );

  const events: SseEvent[] = [];
  if (plan.text || calls.length === 0) {
    events.push(chunk({ role: 'assistant', content: '', refusal: null }));
    for (const piece of splitText(plan.text)) events.push(chunk({ content: piece }));
    if (plan.webSearch) events.push(chunk({ annotations: annotations(plan) }));
  } else {
    // A reply that is only tool calls opens with the first call's header, as OpenAI does.
    events.push(
      chunk({ role: 'assistant', content: null, tool_calls: headers.slice(0, 1), refusal: null }),
    );
  }
  calls.forEach((_, index) => {
    if (index > 0 || plan.text) events.push(chunk({ tool_calls: [headers[index]] }));
    events.push(...(fragments[index] ?? []));
  });
  events.push(chunk({}, calls.length ? 'tool_calls' : 'stop'));
  if (options.includeUsage)
    events.push({ data: { ...head, choices: [], usage: usage(plan, ctx) } });
  events.push({ data: '[DONE]' });
  return events;
}

/** OpenAI's error body; the type and code follow what OpenAI answers for that status. */
export function openAIError(status: number, message: string, type?: string) {
  const byStatus =
    status === 401
      ? { type: 'invalid_request_error', code: 'invalid_api_key' }
      : status === 429
        ? { type: 'requests', code: 'rate_limit_exceeded' }
        : status >= 500
          ? { type: 'server_error', code: null }
          : { type: 'invalid_request_error', code: null };
  return { error: { message, type: type ?? byStatus.type, param: null, code: byStatus.code } };
}
