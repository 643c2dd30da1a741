import { z } from 'zod';

const ToolArguments = z.record(z.string(), z.unknown());

/** A tool call the mock makes, whether or not the request declared that tool. */
export const MockToolCall = z.strictObject({
  name: z.string().min(1),
  arguments: ToolArguments.default({}),
  /**
   * Responses API: answer with the typed tool's own item (`computer_call`, `local_shell_call`,
   * `shell_call`, `apply_patch_call`) even when the request does not declare that tool, as a
   * provider might for a tool the gateway withheld. The other dialects ignore it.
   */
  typed: z.boolean().optional(),
});
export type MockToolCall = z.infer<typeof MockToolCall>;

/**
 * What one request should get back. Comes from the `x-mock-script` header (JSON) and/or the
 * last user message; the header wins field by field. The README lists every option.
 */
export const MockScript = z
  .strictObject({
    /** Reply text (default: the tool echo; with calls: none). */
    text: z.string().optional(),
    /** `'first'` (the first declared function tool) or any tool name. */
    call: z.string().min(1).optional(),
    /** Arguments for `call`; for `'first'` they default to values made from the schema. */
    arguments: ToolArguments.optional(),
    /** Several (parallel) tool calls. */
    calls: z.array(MockToolCall).min(1).optional(),
    /**
     * A provider-hosted tool run inside the reply. `web_search` on every API;
     * `code_execution` and `url_context` are Gemini's (its `codeExecution` and `urlContext`
     * built-ins); `file_search`, `code_interpreter`, `image_generation` and `mcp` are the Responses
     * API's (`/v1/responses`), which hosts them. The other dialects ignore what they don't host.
     */
    hosted: z
      .enum([
        'web_search',
        'code_execution',
        'url_context',
        'file_search',
        'code_interpreter',
        'image_generation',
        'mcp',
      ])
      .optional(),
    /** Responses API, `hosted: "mcp"`: the remote MCP call (default: the first MCP server's `echo`). */
    mcp: z
      .strictObject({
        /** The MCP tool called (`name`), on the first `mcp` tool's server. */
        tool: z.string().min(1).optional(),
        /**
         * The `server_label` of the list and the call, whether or not the request declares that
         * server (default: the first `mcp` tool's label, else `mcp`).
         */
        server: z.string().min(1).optional(),
        arguments: ToolArguments.optional(),
        /** Ask the agent to approve the call (`mcp_approval_request`) instead of making it. */
        approval: z.boolean().optional(),
      })
      .optional(),
    error: z
      .strictObject({
        status: z.number().int().min(400).max(599),
        message: z.string().optional(),
        /** The provider's error type; derived from the status when absent. */
        type: z.string().optional(),
      })
      .optional(),
    /** Close the connection after this many SSE events (without any answer when not streaming). */
    cut: z.number().int().min(0).optional(),
    /** Never answer. */
    hang: z.boolean().optional(),
    latencyMs: z.number().int().min(0).max(600_000).optional(),
    chunkDelayMs: z.number().int().min(0).max(60_000).optional(),
    /**
     * A multi-turn script: `rounds[n]` (any of the fields above) answers a conversation that
     * already holds `n` tool results, merged over the rest of the script; the last round answers
     * every later turn. Lets a test script a tool loop: call one tool, then another with the
     * arguments the first one's answer made possible, then answer.
     */
    rounds: z.array(z.record(z.string(), z.unknown())).min(1).optional(),
  })
  .refine((s) => !(s.call && s.calls), { message: 'use either call or calls, not both' });
export type MockScript = z.infer<typeof MockScript>;

export type ScriptResult = { ok: true; script: MockScript } | { ok: false; message: string };

const MESSAGE_SCRIPT = /^mock:\s*(\{[\s\S]*\})$/;
const CALL_FIRST = /\bcall the first tool\b/i;

/** Reads a script from the last user message: `mock: {json}`, or the phrase "call the first tool". */
export function scriptFromText(text: string): Record<string, unknown> {
  const json = MESSAGE_SCRIPT.exec(text.trim())?.[1];
  if (json !== undefined) {
    const parsed: unknown = JSON.parse(json);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new Error('a mock: script must be a JSON object');
    }
    return parsed as Record<string, unknown>;
  }
  return CALL_FIRST.test(text) ? { call: 'first' } : {};
}

/**
 * Combines the message script and the header script (the header wins) and validates both.
 * `toolResults`: how many tool results the conversation holds (picks a `rounds` entry).
 */
export function resolveScript(
  header: string | undefined,
  messageText: string,
  toolResults = 0,
): ScriptResult {
  let raw: Record<string, unknown>;
  try {
    const fromHeader: unknown = header ? JSON.parse(header) : {};
    if (fromHeader === null || typeof fromHeader !== 'object' || Array.isArray(fromHeader)) {
      return { ok: false, message: 'x-mock-script must be a JSON object' };
    }
    raw = { ...scriptFromText(messageText), ...fromHeader };
    if (Array.isArray(raw.rounds) && raw.rounds.length > 0) {
      const { rounds, ...rest } = raw;
      const round = (rounds as unknown[])[Math.min(toolResults, (rounds as unknown[]).length - 1)];
      if (round === null || typeof round !== 'object' || Array.isArray(round)) {
        return { ok: false, message: 'invalid mock script: every round must be a JSON object' };
      }
      raw = { ...rest, ...(round as Record<string, unknown>) };
    }
  } catch (error) {
    return { ok: false, message: `invalid mock script: ${(error as Error).message}` };
  }
  const result = MockScript.safeParse(raw);
  return result.success
    ? { ok: true, script: result.data }
    : { ok: false, message: `invalid mock script: ${z.prettifyError(result.error)}` };
}

/** A tool the request declared; `parameters` only for function tools (JSON schema of the input). */
/**
 * How many tool results a request's conversation holds, whatever its API: OpenAI `tool`
 * messages, Anthropic `tool_result` blocks, Responses `function_call_output` items, Gemini
 * `functionResponse` parts.
 */
export function countToolResults(body: unknown): number {
  const b = (body ?? {}) as Record<string, unknown>;
  const list = (v: unknown): Record<string, unknown>[] =>
    Array.isArray(v) ? v.filter((x) => x !== null && typeof x === 'object') : [];
  let count = 0;
  for (const m of list(b.messages)) {
    if (m.role === 'tool' || m.role === 'function') count++;
    count += list(m.content).filter((c) => c.type === 'tool_result').length;
  }
  count += list(b.input).filter((i) => i.type === 'function_call_output').length;
  for (const c of list(b.contents)) {
    count += list(c.parts).filter((p) => p.functionResponse !== undefined).length;
  }
  return count;
}

/** The latest user-written text of a conversation, whatever its API (tool results skipped). */
export function latestUserText(body: unknown): string {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b.input === 'string') return b.input;
  const turns = [b.messages, b.input, b.contents].flatMap((v) => (Array.isArray(v) ? v : []));
  for (const turn of turns.reverse()) {
    const t = (turn ?? {}) as Record<string, unknown>;
    if (t.role !== 'user') continue;
    if (typeof t.content === 'string' && t.content !== '') return t.content;
    const parts = [t.content, t.parts].flatMap((v) => (Array.isArray(v) ? v : []));
    const text = parts
      .map((p) => (p ?? {}) as Record<string, unknown>)
      .filter(
        (p) => typeof p.text === 'string' && (p.type === undefined || /text/.test(String(p.type))),
      )
      .map((p) => p.text as string)
      .join('\n');
    if (text !== '') return text;
  }
  return '';
}

/**
 * Where a request's message script is read: its last user message, as always; when that holds
 * none (the conversation ends in tool results), an earlier user message whose script has
 * `rounds` (a multi-turn script keeps scripting the turns after it).
 */
export function scriptSource(lastUserMessage: string, body: unknown): string {
  if (MESSAGE_SCRIPT.test(lastUserMessage.trim())) return lastUserMessage;
  const earlier = latestUserText(body);
  try {
    const script = scriptFromText(earlier);
    return Array.isArray(script.rounds) ? earlier : lastUserMessage;
  } catch {
    return lastUserMessage;
  }
}

export interface DeclaredTool {
  name: string;
  function: boolean;
  parameters?: unknown;
}

export interface WebSearchResult {
  url: string;
  title: string;
  encryptedContent: string;
  pageAge: string;
}

/** The tools the Responses API hosts besides web search. */
export type ResponsesHostedTool = 'file_search' | 'code_interpreter' | 'image_generation' | 'mcp';

/** What the reply contains, independent of the provider's wire format. */
export interface ReplyPlan {
  /** Provider-hosted web search that ran before the text; its first result is cited by the text. */
  webSearch?: { query: string; results: WebSearchResult[] };
  /** Provider-hosted code execution that ran before the text (Gemini). */
  codeExecution?: { code: string; output: string };
  /** Pages the provider read for the reply (Gemini's URL context). */
  urlContext?: { urls: string[] };
  /** Another provider-hosted tool that ran before the text (Responses API only). */
  hosted?: ResponsesHostedTool;
  /** The remote MCP call of `hosted: "mcp"`. */
  mcp?: NonNullable<MockScript['mcp']>;
  text: string;
  toolCalls: MockToolCall[];
}

export const WEB_SEARCH_RESULTS: WebSearchResult[] = [
  {
    url: 'https://example.com/mock-result-1',
    title: 'Mock result 1',
    encryptedContent: 'bW9jay1lbmNyeXB0ZWQtY29udGVudC0x',
    pageAge: 'April 1, 2025',
  },
  {
    url: 'https://example.com/mock-result-2',
    title: 'Mock result 2',
    encryptedContent: 'bW9jay1lbmNyeXB0ZWQtY29udGVudC0y',
    pageAge: 'May 2, 2025',
  },
];
export const WEB_SEARCH_ANSWER = 'According to Mock result 1, the answer is 42.';
export const CODE_EXECUTION = { code: 'print(6 * 7)', output: '42\n' };
export const CODE_EXECUTION_ANSWER = 'The code printed 42.';
export const URL_CONTEXT_DEFAULT_URL = 'https://example.com/mock-page';
export const URL_CONTEXT_ANSWER = 'According to the page, the answer is 42.';

/** The default reply: what the provider saw, e.g. `mock: 2 tools: a, b`. */
export function describeTools(tools: DeclaredTool[]): string {
  const names = tools.map((t) => t.name);
  const count = `${names.length} tool${names.length === 1 ? '' : 's'}`;
  return names.length ? `mock: ${count}: ${names.join(', ')}` : `mock: ${count}`;
}

/** Decides the reply for a request from its script, its declared tools and its last user text. */
export function planReply(script: MockScript, tools: DeclaredTool[], userText: string): ReplyPlan {
  const toolCalls = plannedCalls(script, tools);
  const plan: ReplyPlan = { text: '', toolCalls };
  let answer: string | undefined;
  if (script.hosted === 'web_search') {
    plan.webSearch = searchFor(userText);
    answer = WEB_SEARCH_ANSWER;
  } else if (script.hosted === 'code_execution') {
    plan.codeExecution = CODE_EXECUTION;
    answer = CODE_EXECUTION_ANSWER;
  } else if (script.hosted === 'url_context') {
    const urls = userText.match(/https?:\/\/[^\s"'<>]+/g) ?? [URL_CONTEXT_DEFAULT_URL];
    plan.urlContext = { urls: [...new Set(urls)] };
    answer = URL_CONTEXT_ANSWER;
  } else if (script.hosted !== undefined) {
    plan.hosted = script.hosted;
  }
  if (script.mcp) plan.mcp = script.mcp;
  plan.text = script.text ?? answer ?? (toolCalls.length ? '' : describeTools(tools));
  return plan;
}

function plannedCalls(script: MockScript, tools: DeclaredTool[]): MockToolCall[] {
  if (script.calls) return script.calls;
  if (!script.call) return [];
  if (script.call !== 'first') return [{ name: script.call, arguments: script.arguments ?? {} }];
  const first = tools.find((t) => t.function);
  if (!first) return [];
  return [
    { name: first.name, arguments: script.arguments ?? argumentsFromSchema(first.parameters) },
  ];
}

function searchFor(userText: string): ReplyPlan['webSearch'] {
  return { query: userText.trim() || 'mock query', results: WEB_SEARCH_RESULTS };
}

/** Placeholder values for the required properties of a JSON schema (strings get their name). */
export function argumentsFromSchema(schema: unknown): Record<string, unknown> {
  const { properties = {}, required = [] } = (schema ?? {}) as {
    properties?: Record<string, { type?: unknown; enum?: unknown[] }>;
    required?: string[];
  };
  const args: Record<string, unknown> = {};
  for (const name of required) {
    const property = properties[name] ?? {};
    args[name] = property.enum?.length ? property.enum[0] : placeholder(property.type, name);
  }
  return args;
}

function placeholder(type: unknown, name: string): unknown {
  switch (Array.isArray(type) ? type[0] : type) {
    case 'string':
      return name;
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return null;
  }
}
