import type { Attributes } from '@opentelemetry/api';
import type { ProviderSurface } from '@toolgate/core';

/**
 * The GenAI and MCP semantic conventions' attribute names the gateway sets. They are still
 * "development" in the conventions, which is why they are here rather than imported:
 * `@opentelemetry/semantic-conventions` asks instrumentations to copy unstable names instead of
 * importing its `incubating` entry point, whose minor versions may change them.
 */
export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  requestStream: 'gen_ai.request.stream',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestTemperature: 'gen_ai.request.temperature',
  requestTopP: 'gen_ai.request.top_p',
  requestTopK: 'gen_ai.request.top_k',
  requestChoiceCount: 'gen_ai.request.choice.count',
  requestSeed: 'gen_ai.request.seed',
  responseId: 'gen_ai.response.id',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  timeToFirstChunk: 'gen_ai.response.time_to_first_chunk',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationTokens: 'gen_ai.usage.cache_creation.input_tokens',
  reasoningTokens: 'gen_ai.usage.reasoning.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  openaiApiType: 'openai.api.type',
} as const;

export const MCP = {
  method: 'mcp.method.name',
  session: 'mcp.session.id',
  protocolVersion: 'mcp.protocol.version',
  requestId: 'jsonrpc.request.id',
  statusCode: 'rpc.response.status_code',
} as const;

/** What a surface is in the conventions' terms. */
interface SurfaceNames {
  operation: 'chat' | 'generate_content';
  provider: 'openai' | 'anthropic' | 'gcp.gemini';
  apiType?: 'chat_completions' | 'responses';
}

const SURFACES: Record<ProviderSurface, SurfaceNames> = {
  'openai-chat': { operation: 'chat', provider: 'openai', apiType: 'chat_completions' },
  'openai-responses': { operation: 'chat', provider: 'openai', apiType: 'responses' },
  'anthropic-messages': { operation: 'chat', provider: 'anthropic' },
  gemini: { operation: 'generate_content', provider: 'gcp.gemini' },
};

export function operationOf(surface: ProviderSurface): string {
  return SURFACES[surface].operation;
}

/** `gen_ai.operation.name`, `gen_ai.provider.name` (and OpenAI's API type): known at the start. */
export function surfaceAttributes(surface: ProviderSurface): Attributes {
  const names = SURFACES[surface];
  return {
    [GEN_AI.operation]: names.operation,
    [GEN_AI.provider]: names.provider,
    ...(names.apiType ? { [GEN_AI.openaiApiType]: names.apiType } : {}),
  };
}

/** Where each surface keeps the sampling settings the conventions name (numbers only). */
const PARAMETERS: Record<ProviderSurface, ReadonlyArray<readonly [string, string]>> = {
  'openai-chat': [
    ['max_completion_tokens', GEN_AI.requestMaxTokens],
    ['max_tokens', GEN_AI.requestMaxTokens],
    ['temperature', GEN_AI.requestTemperature],
    ['top_p', GEN_AI.requestTopP],
    ['n', GEN_AI.requestChoiceCount],
    ['seed', GEN_AI.requestSeed],
  ],
  'openai-responses': [
    ['max_output_tokens', GEN_AI.requestMaxTokens],
    ['temperature', GEN_AI.requestTemperature],
    ['top_p', GEN_AI.requestTopP],
  ],
  'anthropic-messages': [
    ['max_tokens', GEN_AI.requestMaxTokens],
    ['temperature', GEN_AI.requestTemperature],
    ['top_p', GEN_AI.requestTopP],
    ['top_k', GEN_AI.requestTopK],
  ],
  gemini: [
    ['maxOutputTokens', GEN_AI.requestMaxTokens],
    ['temperature', GEN_AI.requestTemperature],
    ['topP', GEN_AI.requestTopP],
    ['topK', GEN_AI.requestTopK],
    ['candidateCount', GEN_AI.requestChoiceCount],
    ['seed', GEN_AI.requestSeed],
  ],
};

/**
 * The request's sampling settings, from the body the agent sent (Gemini's are under
 * `generationConfig`). Only finite numbers are taken: nothing the agent wrote as text reaches a
 * span from here.
 */
export function requestParameters(surface: ProviderSurface, body: unknown): Attributes {
  if (!isObject(body)) return {};
  const holder = surface === 'gemini' ? body.generationConfig : body;
  if (!isObject(holder)) return {};
  const out: Attributes = {};
  for (const [field, attribute] of PARAMETERS[surface]) {
    const value = holder[field];
    if (typeof value === 'number' && Number.isFinite(value) && out[attribute] === undefined) {
      out[attribute] = value;
    }
  }
  return out;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
