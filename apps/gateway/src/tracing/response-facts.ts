import type { Attributes } from '@opentelemetry/api';
import { createSseParser, type ProviderSurface } from '@toolgate/core';
import { GEN_AI, isObject } from './gen-ai.ts';

/**
 * What a provider's answer says about itself, in the GenAI conventions' terms: its id, the model
 * that answered, the finish reasons and the token usage when the provider reports it. Read from a
 * JSON answer, or event by event from a stream. Only ids, model names, reasons and counts are
 * taken: never text the model wrote.
 */
export interface ResponseFacts {
  id?: string;
  model?: string;
  finishReasons?: string[];
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheCreationTokens?: number;
  reasoningTokens?: number;
}

/** The facts of one answer object (a JSON answer, a stream chunk, an event's `response`). */
export function readAnswer(surface: ProviderSurface, answer: unknown, facts: ResponseFacts): void {
  if (!isObject(answer)) return;
  const read = READERS[surface];
  read(answer, facts);
}

/** A stream's facts, fed with the provider's bytes as they are relayed. */
export interface StreamFacts {
  push(chunk: Uint8Array): void;
  /** The stream ended: an event the provider left unterminated is read too. */
  end(): void;
  /** When the first chunk came (performance.now()), if one did. */
  readonly firstChunkAt: number | undefined;
  facts(): ResponseFacts;
}

export function streamFacts(surface: ProviderSurface): StreamFacts {
  const parser = createSseParser();
  const facts: ResponseFacts = {};
  let firstChunkAt: number | undefined;
  return {
    push(chunk) {
      firstChunkAt ??= performance.now();
      for (const event of parser.push(chunk)) readEvent(surface, event.data, facts);
    },
    end() {
      for (const event of parser.end()) readEvent(surface, event.data, facts);
    },
    get firstChunkAt() {
      return firstChunkAt;
    },
    facts: () => facts,
  };
}

function readEvent(surface: ProviderSurface, data: string, facts: ResponseFacts): void {
  if (data === '' || data === '[DONE]') return;
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return;
  }
  if (!isObject(value)) return;
  if (surface === 'anthropic-messages') {
    // message_start carries the message (id, model, input usage); message_delta the rest.
    if (value.type === 'message_start') readAnthropic(value.message, facts);
    else if (value.type === 'message_delta') {
      if (isObject(value.delta)) reason(facts, value.delta.stop_reason);
      readAnthropicUsage(value.usage, facts);
    }
    return;
  }
  if (surface === 'openai-responses') {
    // response.created … response.completed / incomplete / failed each carry the response.
    if (isObject(value.response)) readOpenAIResponse(value.response, facts);
    return;
  }
  readAnswer(surface, value, facts);
}

/** The span attributes of `facts`. */
export function factAttributes(facts: ResponseFacts): Attributes {
  const out: Attributes = {};
  if (facts.id !== undefined) out[GEN_AI.responseId] = facts.id;
  if (facts.model !== undefined) out[GEN_AI.responseModel] = facts.model;
  if (facts.finishReasons?.length) out[GEN_AI.finishReasons] = facts.finishReasons;
  if (facts.inputTokens !== undefined) out[GEN_AI.inputTokens] = facts.inputTokens;
  if (facts.outputTokens !== undefined) out[GEN_AI.outputTokens] = facts.outputTokens;
  if (facts.cacheReadTokens !== undefined) out[GEN_AI.cacheReadTokens] = facts.cacheReadTokens;
  if (facts.cacheCreationTokens !== undefined)
    out[GEN_AI.cacheCreationTokens] = facts.cacheCreationTokens;
  if (facts.reasoningTokens !== undefined) out[GEN_AI.reasoningTokens] = facts.reasoningTokens;
  return out;
}

function readOpenAIChat(answer: Record<string, unknown>, facts: ResponseFacts): void {
  identify(answer.id, answer.model, facts);
  if (Array.isArray(answer.choices)) {
    for (const choice of answer.choices) if (isObject(choice)) reason(facts, choice.finish_reason);
  }
  const usage = answer.usage;
  if (!isObject(usage)) return;
  setCount(facts, 'inputTokens', usage.prompt_tokens);
  setCount(facts, 'outputTokens', usage.completion_tokens);
  if (isObject(usage.prompt_tokens_details)) {
    setCount(facts, 'cacheReadTokens', usage.prompt_tokens_details.cached_tokens);
  }
  if (isObject(usage.completion_tokens_details)) {
    setCount(facts, 'reasoningTokens', usage.completion_tokens_details.reasoning_tokens);
  }
}

function readOpenAIResponse(answer: Record<string, unknown>, facts: ResponseFacts): void {
  identify(answer.id, answer.model, facts);
  // No finish reason in the Responses API: its status says how the response ended.
  if (
    answer.status === 'completed' ||
    answer.status === 'incomplete' ||
    answer.status === 'failed'
  ) {
    facts.finishReasons = [answer.status];
  }
  const usage = answer.usage;
  if (!isObject(usage)) return;
  setCount(facts, 'inputTokens', usage.input_tokens);
  setCount(facts, 'outputTokens', usage.output_tokens);
  if (isObject(usage.input_tokens_details)) {
    setCount(facts, 'cacheReadTokens', usage.input_tokens_details.cached_tokens);
  }
  if (isObject(usage.output_tokens_details)) {
    setCount(facts, 'reasoningTokens', usage.output_tokens_details.reasoning_tokens);
  }
}

function readAnthropic(answer: unknown, facts: ResponseFacts): void {
  if (!isObject(answer)) return;
  identify(answer.id, answer.model, facts);
  reason(facts, answer.stop_reason);
  readAnthropicUsage(answer.usage, facts);
}

/**
 * Anthropic counts cached input apart from `input_tokens`; the conventions' input count includes
 * it (cache reads and writes are also given on their own).
 */
function readAnthropicUsage(usage: unknown, facts: ResponseFacts): void {
  if (!isObject(usage)) return;
  setCount(facts, 'cacheReadTokens', usage.cache_read_input_tokens);
  setCount(facts, 'cacheCreationTokens', usage.cache_creation_input_tokens);
  if (typeof usage.input_tokens === 'number') {
    setCount(
      facts,
      'inputTokens',
      usage.input_tokens + (facts.cacheReadTokens ?? 0) + (facts.cacheCreationTokens ?? 0),
    );
  }
  setCount(facts, 'outputTokens', usage.output_tokens);
}

function readGemini(answer: Record<string, unknown>, facts: ResponseFacts): void {
  identify(answer.responseId, answer.modelVersion, facts);
  if (Array.isArray(answer.candidates)) {
    for (const candidate of answer.candidates) {
      if (isObject(candidate)) reason(facts, candidate.finishReason);
    }
  }
  const usage = answer.usageMetadata;
  if (!isObject(usage)) return;
  setCount(facts, 'inputTokens', usage.promptTokenCount);
  setCount(facts, 'cacheReadTokens', usage.cachedContentTokenCount);
  setCount(facts, 'reasoningTokens', usage.thoughtsTokenCount);
  // Gemini counts thinking apart from the candidates; the conventions' output count includes it.
  if (typeof usage.candidatesTokenCount === 'number') {
    const thoughts = typeof usage.thoughtsTokenCount === 'number' ? usage.thoughtsTokenCount : 0;
    setCount(facts, 'outputTokens', usage.candidatesTokenCount + thoughts);
  }
}

const READERS: Record<
  ProviderSurface,
  (answer: Record<string, unknown>, facts: ResponseFacts) => void
> = {
  'openai-chat': readOpenAIChat,
  'openai-responses': readOpenAIResponse,
  'anthropic-messages': readAnthropic,
  gemini: readGemini,
};

/** Ids and model names are the provider's: bounded, and only when they are short plain text. */
const NAME = /^[\w.:/@-]{1,256}$/;

function identify(id: unknown, model: unknown, facts: ResponseFacts): void {
  if (facts.id === undefined && typeof id === 'string' && NAME.test(id)) facts.id = id;
  if (facts.model === undefined && typeof model === 'string' && NAME.test(model)) {
    facts.model = model;
  }
}

function reason(facts: ResponseFacts, value: unknown): void {
  if (typeof value !== 'string' || !NAME.test(value)) return;
  facts.finishReasons ??= [];
  if (facts.finishReasons.length < 16) facts.finishReasons.push(value);
}

type Count =
  | 'inputTokens'
  | 'outputTokens'
  | 'cacheReadTokens'
  | 'cacheCreationTokens'
  | 'reasoningTokens';

function setCount(facts: ResponseFacts, field: Count, value: unknown): void {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) facts[field] = value;
}
