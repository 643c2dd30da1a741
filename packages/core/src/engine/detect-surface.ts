import { isJsonObject } from '../json/json-value.ts';
import type { Surface } from '../resources/vocabulary.ts';

/**
 * Guesses a request body's surface: Anthropic requests carry a top-level `system`,
 * `mcp_servers`, or tools with `input_schema` (or a bare `name`); everything else is treated as
 * OpenAI Chat Completions. For tools that preview or evaluate a request whose endpoint is unknown.
 */
export function detectSurface(body: unknown): Surface {
  if (!isJsonObject(body)) return 'openai-chat';
  if (body.system !== undefined || body.mcp_servers !== undefined) return 'anthropic-messages';
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const anthropic = tools.some((t) => isJsonObject(t) && ('input_schema' in t || 'name' in t));
  return anthropic ? 'anthropic-messages' : 'openai-chat';
}
