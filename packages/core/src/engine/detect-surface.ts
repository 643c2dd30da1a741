import { isJsonObject, type JsonObject } from '../json/json-value.ts';
import type { Surface } from '../resources/vocabulary.ts';

/** Fields only a Gemini `generateContent` request carries at the top level. */
const GEMINI_FIELDS = ['contents', 'systemInstruction', 'toolConfig', 'generationConfig'];
/** Fields of a Gemini `tools[]` entry (a `Tool`), where the others put a declaration. */
const GEMINI_TOOL_FIELDS = ['functionDeclarations', 'googleSearch', 'codeExecution', 'urlContext'];

/**
 * Guesses a request body's surface: Gemini requests carry `contents` (or `systemInstruction`,
 * `toolConfig`, `generationConfig`, or tools holding `functionDeclarations` or a built-in such
 * as `googleSearch`); OpenAI Responses requests carry `input` or `instructions` and no
 * `messages`, or flat typed tools (`{type: "function", name}`); Anthropic requests carry a
 * top-level `system`, `mcp_servers`, or tools with `input_schema` (or a bare `name`); everything
 * else is treated as OpenAI Chat Completions. For tools that preview or evaluate a request whose
 * endpoint is unknown.
 */
export function detectSurface(body: unknown): Surface {
  if (!isJsonObject(body)) return 'openai-chat';
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const geminiTool = tools.some(
    (t) => isJsonObject(t) && GEMINI_TOOL_FIELDS.some((field) => field in t),
  );
  if (geminiTool || GEMINI_FIELDS.some((field) => body[field] !== undefined)) return 'gemini';
  if (isResponsesRequest(body, tools)) return 'openai-responses';
  if (body.system !== undefined || body.mcp_servers !== undefined) return 'anthropic-messages';
  const anthropic = tools.some((t) => isJsonObject(t) && ('input_schema' in t || 'name' in t));
  return anthropic ? 'anthropic-messages' : 'openai-chat';
}

function isResponsesRequest(body: JsonObject, tools: unknown[]): boolean {
  if (body.messages !== undefined) return false;
  if (body.input !== undefined || body.instructions !== undefined) return true;
  // Chat Completions nests a function tool's fields under `function`; Anthropic's have `input_schema`.
  return tools.some(
    (t) =>
      isJsonObject(t) && typeof t.type === 'string' && !('function' in t) && !('input_schema' in t),
  );
}
