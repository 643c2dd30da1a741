import type { Surface } from '@toolgate/core';

/**
 * Errors in the shape the agent's SDK expects from its provider, so `openai` and
 * `@anthropic-ai/sdk` raise their usual typed errors.
 */
export function providerError(surface: Surface, status: number, message: string): object {
  if (surface === 'anthropic-messages') {
    return { type: 'error', error: { type: anthropicType(status), message } };
  }
  return { error: { message, type: openAIType(status), param: null, code: null } };
}

/** {@link providerError} as the JSON text of an answer or event. */
export function providerErrorJson(surface: Surface, status: number, message: string): string {
  return JSON.stringify(providerError(surface, status, message));
}

function openAIType(status: number): string {
  if (status === 400 || status === 422) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  return 'api_error';
}

function anthropicType(status: number): string {
  if (status === 400 || status === 422) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 503 || status === 529) return 'overloaded_error';
  return 'api_error';
}
