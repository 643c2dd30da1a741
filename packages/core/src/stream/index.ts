export { createAnthropicStreamMediator } from './anthropic-stream.ts';
export { createGeminiStreamMediator } from './gemini-stream.ts';
export { HeldTailTooLargeError, holdActionableTail } from './held-tail.ts';
export { responsesErrorEvent, responsesStreamFailure } from './openai-responses-events.ts';
export { createOpenAIResponsesStreamMediator } from './openai-responses-stream.ts';
export { createOpenAIStreamMediator } from './openai-stream.ts';
export {
  createSseParser,
  type SseEvent,
  type SseParser,
  type StreamMediator,
  serializeJsonSse,
  serializeSse,
} from './sse.ts';
