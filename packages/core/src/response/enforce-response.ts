import type { ResponseEvidence } from '../receipt/receipt-schema.ts';
import { createAnthropicStreamMediator } from '../stream/anthropic-stream.ts';
import { createGeminiStreamMediator } from '../stream/gemini-stream.ts';
import { createOpenAIResponsesStreamMediator } from '../stream/openai-responses-stream.ts';
import { createOpenAIStreamMediator } from '../stream/openai-stream.ts';
import type { StreamMediator } from '../stream/sse.ts';
import { enforceAnthropicResponse } from './anthropic-response.ts';
import { enforceGeminiResponse } from './gemini-response.ts';
import { enforceOpenAIResponse } from './openai-response.ts';
import { enforceResponsesBody } from './openai-responses-response.ts';
import type { ResponseContext } from './response-context.ts';

/** The streaming transformer for the request's surface. */
export function createStreamMediator(ctx: ResponseContext): StreamMediator {
  if (ctx.surface === 'gemini') return createGeminiStreamMediator(ctx);
  if (ctx.surface === 'openai-responses') return createOpenAIResponsesStreamMediator(ctx);
  return ctx.surface === 'openai-chat'
    ? createOpenAIStreamMediator(ctx)
    : createAnthropicStreamMediator(ctx);
}

/** Response-side enforcement of a complete (non-streaming) body for the request's surface. */
export function enforceResponseBody(
  body: unknown,
  ctx: ResponseContext,
): { body: unknown; evidence: ResponseEvidence } {
  if (ctx.surface === 'gemini') return enforceGeminiResponse(body, ctx);
  if (ctx.surface === 'openai-responses') return enforceResponsesBody(body, ctx);
  return ctx.surface === 'openai-chat'
    ? enforceOpenAIResponse(body, ctx)
    : enforceAnthropicResponse(body, ctx);
}

export type ProviderResponse = { json: unknown } | { sse: string };

/** Either form at once: a JSON body, or a whole SSE stream (tools such as `toolgate eval`). */
export function enforceResponse(
  response: ProviderResponse,
  ctx: ResponseContext,
): { body: unknown; evidence: ResponseEvidence } {
  if ('json' in response) return enforceResponseBody(response.json, ctx);
  const mediator = createStreamMediator(ctx);
  const body = mediator.push(response.sse) + mediator.end();
  return { body, evidence: mediator.evidence() };
}
