import { z } from 'zod';
import { deriveId, estimateTokens } from './ids.ts';
import type { DeclaredTool, ReplyPlan } from './script.ts';
import { type SseEvent, splitFragments, splitText } from './sse.ts';

/** The part of a Messages request the mock reads; everything else is accepted as is. */
export const MessagesRequest = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  messages: z
    .array(
      z.looseObject({
        role: z.enum(['user', 'assistant']),
        content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]),
      }),
    )
    .min(1),
  tools: z
    .array(
      z.looseObject({
        name: z.string(),
        type: z.string().nullish(),
        input_schema: z.unknown().optional(),
      }),
    )
    .optional(),
  stream: z.boolean().optional(),
});
export type MessagesRequest = z.infer<typeof MessagesRequest>;

/** Per-request values that a real provider would generate. */
export interface AnthropicContext {
  requestHash: string;
  model: string;
  inputTokens: number;
}

/** Client tools have an `input_schema`; server tools (`web_search_20250305`, …) a versioned type. */
export function declaredTools(request: MessagesRequest): DeclaredTool[] {
  return (request.tools ?? []).map((tool) => {
    const client = tool.input_schema !== undefined && (!tool.type || tool.type === 'custom');
    return client
      ? { name: tool.name, function: true, parameters: tool.input_schema }
      : { name: tool.name, function: false };
  });
}

/** The text of the last message when the user wrote it; empty when it only carries tool results. */
export function lastUserText(request: MessagesRequest): string {
  const last = request.messages.at(-1);
  if (last?.role !== 'user') return '';
  if (typeof last.content === 'string') return last.content;
  return last.content
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('\n');
}

/** The content blocks of the reply, in order: hosted search, text, tool calls. */
export function contentBlocks(plan: ReplyPlan, ctx: AnthropicContext) {
  const blocks: Record<string, unknown>[] = [];
  const search = plan.webSearch;
  if (search) {
    const toolUseId = deriveId('srvtoolu_', ctx.requestHash, 'web_search');
    blocks.push(
      {
        type: 'server_tool_use',
        id: toolUseId,
        name: 'web_search',
        input: { query: search.query },
      },
      {
        type: 'web_search_tool_result',
        tool_use_id: toolUseId,
        content: search.results.map((r) => ({
          type: 'web_search_result',
          url: r.url,
          title: r.title,
          encrypted_content: r.encryptedContent,
          page_age: r.pageAge,
        })),
      },
    );
  }
  const cited = search?.results[0];
  if (cited) {
    const citation = {
      type: 'web_search_result_location',
      url: cited.url,
      title: cited.title,
      encrypted_index: deriveId('', ctx.requestHash, 'citation:0'),
      cited_text: plan.text,
    };
    blocks.push({ type: 'text', text: plan.text, citations: [citation] });
  } else if (plan.text || plan.toolCalls.length === 0) {
    blocks.push({ type: 'text', text: plan.text });
  }
  plan.toolCalls.forEach((call, index) => {
    const id = deriveId('toolu_', ctx.requestHash, `call:${index}`);
    blocks.push({ type: 'tool_use', id, name: call.name, input: call.arguments });
  });
  return blocks;
}

function outputTokens(plan: ReplyPlan): number {
  return estimateTokens(plan.text + JSON.stringify(plan.toolCalls));
}

function startUsage(ctx: AnthropicContext, output: number) {
  return {
    input_tokens: ctx.inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: output,
    service_tier: 'standard',
  };
}

function serverToolUse(plan: ReplyPlan) {
  return plan.webSearch ? { server_tool_use: { web_search_requests: 1 } } : {};
}

function envelope(ctx: AnthropicContext) {
  return {
    id: deriveId('msg_', ctx.requestHash, 'message'),
    type: 'message' as const,
    role: 'assistant' as const,
    model: ctx.model,
  };
}

function stopReason(plan: ReplyPlan) {
  return plan.toolCalls.length ? ('tool_use' as const) : ('end_turn' as const);
}

/** The non-streaming Messages body. */
export function message(plan: ReplyPlan, ctx: AnthropicContext) {
  return {
    ...envelope(ctx),
    content: contentBlocks(plan, ctx),
    stop_reason: stopReason(plan),
    stop_sequence: null,
    usage: { ...startUsage(ctx, outputTokens(plan)), ...serverToolUse(plan) },
  };
}

/** How each block opens in a stream: text empty, tool inputs empty (they follow as JSON deltas). */
function blockStart(block: Record<string, unknown>): Record<string, unknown> {
  if (block.type === 'text') return { type: 'text', text: '' };
  if (block.type === 'tool_use' || block.type === 'server_tool_use') return { ...block, input: {} };
  return block;
}

function blockDeltas(block: Record<string, unknown>): Record<string, unknown>[] {
  if (block.type === 'text') {
    const citations = (block.citations as unknown[] | undefined) ?? [];
    return [
      ...citations.map((citation) => ({ type: 'citations_delta', citation })),
      ...splitText(block.text as string).map((text) => ({ type: 'text_delta', text })),
    ];
  }
  if (block.type === 'tool_use' || block.type === 'server_tool_use') {
    // Anthropic opens every tool input with an empty fragment.
    const pieces = ['', ...splitFragments(JSON.stringify(block.input))];
    return pieces.map((partial_json) => ({ type: 'input_json_delta', partial_json }));
  }
  return [];
}

/**
 * The event sequence Anthropic streams for the same reply: message_start, ping, then per block
 * content_block_start / content_block_delta… / content_block_stop, message_delta, message_stop.
 */
export function messageEvents(plan: ReplyPlan, ctx: AnthropicContext): SseEvent[] {
  const event = (type: string, data: object): SseEvent => ({
    event: type,
    data: { type, ...data },
  });
  const events: SseEvent[] = [
    event('message_start', {
      message: {
        ...envelope(ctx),
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: startUsage(ctx, 1),
      },
    }),
    event('ping', {}),
  ];
  contentBlocks(plan, ctx).forEach((block, index) => {
    events.push(event('content_block_start', { index, content_block: blockStart(block) }));
    for (const delta of blockDeltas(block))
      events.push(event('content_block_delta', { index, delta }));
    events.push(event('content_block_stop', { index }));
  });
  events.push(
    event('message_delta', {
      delta: { stop_reason: stopReason(plan), stop_sequence: null },
      usage: { output_tokens: outputTokens(plan), ...serverToolUse(plan) },
    }),
    event('message_stop', {}),
  );
  return events;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

/** Anthropic's error body; the type follows what Anthropic answers for that status. */
export function anthropicError(status: number, message: string, type?: string) {
  const byStatus = ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error' as const, error: { type: type ?? byStatus, message } };
}
