import { isJsonObject, type JsonObject } from '../json/json-value.ts';
import type { Surface } from '../resources/vocabulary.ts';

/**
 * Guesses a request body's surface: OpenAI Responses requests carry `input` or `instructions`
 * and no `messages`, or flat typed tools (`{type: "function", name}`); Anthropic requests carry
 * a top-level `system`, `mcp_servers`, or tools with `input_schema` (or a bare `name`);
 * everything else is treated as OpenAI Chat Completions. For tools that preview or evaluate a
 * request whose endpoint is unknown.
 */
export function detectSurface(body: unknown): Surface {
  if (!isJsonObject(body)) return 'openai-chat';
  if (isResponsesRequest(body)) return 'openai-responses';
  if (body.system !== undefined || body.mcp_servers !== undefined) return 'anthropic-messages';
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const anthropic = tools.some((t) => isJsonObject(t) && ('input_schema' in t || 'name' in t));
  return anthropic ? 'anthropic-messages' : 'openai-chat';
}

function isResponsesRequest(body: JsonObject): boolean {
  if (body.messages !== undefined) return false;
  if (body.input !== undefined || body.instructions !== undefined) return true;
  const tools = Array.isArray(body.tools) ? body.tools : [];
  // Chat Completions nests a function tool's fields under `function`; Anthropic's have `input_schema`.
  return tools.some(
    (t) =>
      isJsonObject(t) && typeof t.type === 'string' && !('function' in t) && !('input_schema' in t),
  );
}
