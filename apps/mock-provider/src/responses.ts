import { z } from 'zod';
import { deriveId, estimateTokens } from './ids.ts';
import type { DeclaredTool, MockToolCall, ReplyPlan } from './script.ts';
import { type SseEvent, splitFragments, splitText } from './sse.ts';

/** The part of a Responses request the mock reads; everything else is accepted as is. */
export const ResponsesRequest = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.looseObject({}))]).optional(),
  instructions: z.string().nullish(),
  tools: z.array(z.looseObject({ type: z.string() })).nullish(),
  stream: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
});
export type ResponsesRequest = z.infer<typeof ResponsesRequest>;

/** Per-request values that a real provider would generate. */
export interface ResponsesContext {
  requestHash: string;
  created: number;
  request: ResponsesRequest;
  inputTokens: number;
}

/** Typed tools the agent runs: a planned call to one comes back as its own call item. */
const AGENT_TYPED: Readonly<Record<string, string>> = {
  computer_use_preview: 'computer',
  computer: 'computer',
  local_shell: 'local_shell',
  shell: 'shell',
  apply_patch: 'apply_patch',
};

/**
 * Function and custom tools by name; typed tools by the name Toolgate gives them (`computer`,
 * `shell`, …, `web_search`), remote MCP servers by `server_label`.
 */
export function declaredTools(request: ResponsesRequest): DeclaredTool[] {
  return (request.tools ?? []).map((tool) => {
    if (tool.type === 'function') {
      return { name: String(tool.name), function: true, parameters: tool.parameters };
    }
    if (tool.type === 'custom') return { name: String(tool.name), function: false };
    if (tool.type === 'mcp') return { name: String(tool.server_label), function: false };
    const name =
      AGENT_TYPED[tool.type] ?? (tool.type.startsWith('web_search') ? 'web_search' : tool.type);
    return { name, function: false };
  });
}

/** The text of the last input item when the user wrote it; empty after a call's output. */
export function lastUserText(request: ResponsesRequest): string {
  const input = request.input;
  if (typeof input === 'string') return input;
  const last = input?.at(-1);
  if (last === undefined || last.role !== 'user') return '';
  if (typeof last.content === 'string') return last.content;
  if (!Array.isArray(last.content)) return '';
  return last.content
    .filter((part): part is { type: 'input_text'; text: string } => part?.type === 'input_text')
    .map((part) => part.text)
    .join('\n');
}

type Item = Record<string, unknown>;

/** The output items of the reply, in order: a hosted tool's items, the message, the calls. */
export function outputItems(plan: ReplyPlan, ctx: ResponsesContext): Item[] {
  const id = (prefix: string, purpose: string) => deriveId(prefix, ctx.requestHash, purpose);
  const items: Item[] = [...hostedItems(plan, ctx, id)];
  if (plan.text || (plan.toolCalls.length === 0 && items.length === 0)) {
    const cited = plan.webSearch?.results[0];
    const annotations = cited
      ? [
          {
            type: 'url_citation',
            url: cited.url,
            title: cited.title,
            start_index: 0,
            end_index: plan.text.length,
          },
        ]
      : [];
    items.push({
      id: id('msg_', 'message'),
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: plan.text, annotations, logprobs: [] }],
    });
  }
  plan.toolCalls.forEach((call, index) => {
    items.push(callItem(call, index, ctx, id));
  });
  return items;
}

function callItem(
  call: MockToolCall,
  index: number,
  ctx: ResponsesContext,
  id: (prefix: string, purpose: string) => string,
): Item {
  const callId = id('call_', `call:${index}`);
  const declared = (ctx.request.tools ?? []).some((t) => AGENT_TYPED[t.type] === call.name);
  const forced = call.typed === true && Object.values(AGENT_TYPED).includes(call.name);
  if (!declared && !forced) {
    return {
      id: id('fc_', `call:${index}`),
      type: 'function_call',
      status: 'completed',
      call_id: callId,
      name: call.name,
      arguments: JSON.stringify(call.arguments),
    };
  }
  const base = { call_id: callId, status: 'completed' };
  switch (call.name) {
    case 'computer':
      return {
        id: id('cu_', `call:${index}`),
        type: 'computer_call',
        ...base,
        action: { type: 'screenshot', ...call.arguments },
        pending_safety_checks: [],
      };
    case 'apply_patch':
      return {
        id: id('apc_', `call:${index}`),
        type: 'apply_patch_call',
        ...base,
        operation: { type: 'create_file', path: 'mock.txt', diff: '+mock\n', ...call.arguments },
      };
    default:
      return {
        id: id('lsh_', `call:${index}`),
        type: call.name === 'shell' ? 'shell_call' : 'local_shell_call',
        ...base,
        action: { type: 'exec', command: ['echo', 'mock'], env: {}, ...call.arguments },
        ...(call.name === 'shell' ? { environment: { type: 'local' } } : {}),
      };
  }
}

function hostedItems(
  plan: ReplyPlan,
  ctx: ResponsesContext,
  id: (prefix: string, purpose: string) => string,
): Item[] {
  const search = plan.webSearch;
  if (search) {
    return [
      {
        id: id('ws_', 'web_search'),
        type: 'web_search_call',
        status: 'completed',
        action: {
          type: 'search',
          query: search.query,
          sources: search.results.map((r) => ({ type: 'url', url: r.url })),
        },
      },
    ];
  }
  switch (plan.hosted) {
    case 'file_search':
      return [
        {
          id: id('fs_', 'file_search'),
          type: 'file_search_call',
          status: 'completed',
          queries: [lastUserText(ctx.request) || 'mock query'],
          results: null,
        },
      ];
    case 'code_interpreter':
      return [
        {
          id: id('ci_', 'code_interpreter'),
          type: 'code_interpreter_call',
          status: 'completed',
          code: 'print(6 * 7)',
          container_id: id('cntr_', 'container'),
          outputs: null,
        },
      ];
    case 'image_generation':
      return [
        {
          id: id('ig_', 'image_generation'),
          type: 'image_generation_call',
          status: 'completed',
          result: 'bW9jay1pbWFnZQ==',
        },
      ];
    case 'mcp':
      return mcpItems(plan, ctx, id);
    default:
      return [];
  }
}

/** The remote MCP server's tool list, then the call (or the request to approve it). */
function mcpItems(
  plan: ReplyPlan,
  ctx: ResponsesContext,
  id: (prefix: string, purpose: string) => string,
): Item[] {
  const server = (ctx.request.tools ?? []).find((t) => t.type === 'mcp');
  const declared = typeof server?.server_label === 'string' ? server.server_label : 'mcp';
  const label = plan.mcp?.server ?? declared;
  const tool = plan.mcp?.tool ?? 'echo';
  const args = JSON.stringify(plan.mcp?.arguments ?? {});
  const list = {
    id: id('mcpl_', 'mcp_list_tools'),
    type: 'mcp_list_tools',
    server_label: label,
    tools: [{ name: tool, input_schema: { type: 'object', properties: {} }, annotations: null }],
  };
  if (plan.mcp?.approval) {
    const request = { type: 'mcp_approval_request', server_label: label, name: tool };
    return [list, { id: id('mcpr_', 'mcp_approval'), ...request, arguments: args }];
  }
  const call = {
    id: id('mcp_', 'mcp_call'),
    type: 'mcp_call',
    status: 'completed',
    server_label: label,
    name: tool,
    arguments: args,
    output: `mock: ${tool} done`,
    error: null,
  };
  return [list, call];
}

/** The `response` object, `status` and `output` as given. */
export function responseObject(
  plan: ReplyPlan,
  ctx: ResponsesContext,
  status: 'in_progress' | 'completed',
  output: Item[],
) {
  const outputTokens = estimateTokens(plan.text + JSON.stringify(plan.toolCalls));
  return {
    id: deriveId('resp_', ctx.requestHash, 'response'),
    object: 'response',
    created_at: ctx.created,
    status,
    error: null,
    incomplete_details: null,
    instructions: ctx.request.instructions ?? null,
    max_output_tokens: null,
    model: ctx.request.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: ctx.request.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: ctx.request.tools ?? [],
    top_p: 1,
    truncation: 'disabled',
    usage:
      status === 'completed'
        ? {
            input_tokens: ctx.inputTokens,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: outputTokens,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: ctx.inputTokens + outputTokens,
          }
        : null,
    metadata: {},
  };
}

/** The non-streaming body. */
export function responseBody(plan: ReplyPlan, ctx: ResponsesContext) {
  return responseObject(plan, ctx, 'completed', outputItems(plan, ctx));
}

/**
 * The semantic event stream OpenAI sends for the same reply: `response.created`,
 * `response.in_progress`, per item `output_item.added`, its own events (text deltas and the
 * citation, argument fragments, hosted tool progress), `output_item.done`, then
 * `response.completed`; every event named by an `event:` line and numbered by
 * `sequence_number`.
 */
export function responseEvents(plan: ReplyPlan, ctx: ResponsesContext): SseEvent[] {
  const events: SseEvent[] = [];
  const push = (type: string, data: Record<string, unknown>) => {
    events.push({ event: type, data: { type, ...data, sequence_number: events.length } });
  };
  push('response.created', { response: responseObject(plan, ctx, 'in_progress', []) });
  push('response.in_progress', { response: responseObject(plan, ctx, 'in_progress', []) });
  const items = outputItems(plan, ctx);
  items.forEach((item, index) => {
    push('response.output_item.added', { output_index: index, item: startOf(item) });
    itemEvents(item, index, push);
    push('response.output_item.done', { output_index: index, item });
  });
  push('response.completed', { response: responseObject(plan, ctx, 'completed', items) });
  return events;
}

/** An item as `output_item.added` shows it: in progress, nothing streamed yet. */
function startOf(item: Item): Item {
  switch (item.type) {
    case 'message':
      return { ...item, status: 'in_progress', content: [] };
    case 'function_call':
    case 'mcp_call':
      return { ...item, status: 'in_progress', arguments: '' };
    case 'mcp_approval_request':
    case 'mcp_list_tools':
      return item;
    default:
      return { ...item, status: 'in_progress' };
  }
}

type Push = (type: string, data: Record<string, unknown>) => void;

function itemEvents(item: Item, index: number, push: Push): void {
  const at = { item_id: item.id, output_index: index };
  switch (item.type) {
    case 'message': {
      const part = (item.content as Item[])[0] as Item;
      const text = String(part.text);
      const content = { ...at, content_index: 0 };
      push('response.content_part.added', {
        ...content,
        part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
      });
      for (const delta of splitText(text)) {
        push('response.output_text.delta', { ...content, delta, logprobs: [] });
      }
      (part.annotations as Item[]).forEach((annotation, annotationIndex) => {
        push('response.output_text.annotation.added', {
          ...content,
          annotation_index: annotationIndex,
          annotation,
        });
      });
      push('response.output_text.done', { ...content, text, logprobs: [] });
      push('response.content_part.done', { ...content, part });
      return;
    }
    case 'function_call':
      for (const delta of splitFragments(String(item.arguments))) {
        push('response.function_call_arguments.delta', { ...at, delta });
      }
      push('response.function_call_arguments.done', {
        ...at,
        name: item.name,
        arguments: item.arguments,
      });
      return;
    case 'web_search_call':
    case 'file_search_call':
      for (const step of ['in_progress', 'searching', 'completed']) {
        push(`response.${item.type}.${step}`, at);
      }
      return;
    case 'code_interpreter_call':
      push('response.code_interpreter_call.in_progress', at);
      push('response.code_interpreter_call_code.delta', { ...at, delta: item.code });
      push('response.code_interpreter_call_code.done', { ...at, code: item.code });
      push('response.code_interpreter_call.interpreting', at);
      push('response.code_interpreter_call.completed', at);
      return;
    case 'image_generation_call':
      for (const step of ['in_progress', 'generating', 'completed']) {
        push(`response.image_generation_call.${step}`, at);
      }
      return;
    case 'mcp_list_tools':
      push('response.mcp_list_tools.in_progress', at);
      push('response.mcp_list_tools.completed', at);
      return;
    case 'mcp_call':
      push('response.mcp_call.in_progress', at);
      push('response.mcp_call_arguments.delta', { ...at, delta: item.arguments });
      push('response.mcp_call_arguments.done', { ...at, arguments: item.arguments });
      push('response.mcp_call.completed', at);
      return;
    default:
      return;
  }
}
