export {
  type AnthropicBlockKind,
  classifyAnthropicBlock,
  decideAnthropicToolUse,
  describeAnthropicHostedBlock,
  enforceAnthropicResponse,
} from './anthropic-response.ts';
export {
  decideGeminiFunctionCall,
  enforceGeminiChunk,
  enforceGeminiResponse,
  PARTIAL_CALL_REASON,
} from './gemini-response.ts';
export {
  decideOpenAIToolCall,
  type EnforcedResponse,
  enforceOpenAIResponse,
  type OpenAICallDecision,
} from './openai-response.ts';
export { enforceResponsesBody } from './openai-responses-response.ts';
export {
  type ProviderErrorDetails,
  providerError,
  providerErrorJson,
  sanitizeProviderError,
} from './provider-error.ts';
export type { HostedEventInput, ResponseContext } from './response-context.ts';
