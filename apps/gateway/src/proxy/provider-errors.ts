import { boundedText } from '@toolgate/core';

/**
 * The provider side of an answer that is not a plain success: errors in the shape the agent's SDK
 * expects from its provider (one definition, in core, shared with the sanitizer that passes a
 * provider's own error answers on, `sanitizeProviderError`), the provider headers passed on, and
 * what a failed provider call means for the agent.
 */
export { providerError, providerErrorJson } from '@toolgate/core';

/** Response headers from the provider worth passing on (ids, rate limits, retry hints). */
const PASSED_HEADERS = /^(x-request-id|request-id|openai-|anthropic-|x-ratelimit-|retry-after)/;

/** `into`, plus the provider's headers worth passing on to the agent. */
export function passedHeaders(
  upstream: Record<string, string | string[] | undefined>,
  into: Record<string, string | string[]>,
): Record<string, string | string[]> {
  for (const name in upstream) {
    const value = upstream[name];
    if (value !== undefined && PASSED_HEADERS.test(name)) into[name] = value;
  }
  return into;
}

/** What a failed provider call means for the agent: 504 timed out, 499 gone, else 502. */
export function upstreamFailure(error: unknown): { status: number; message: string } {
  const code = (error as { code?: string }).code ?? '';
  if (/TIMEOUT/i.test(code)) return { status: 504, message: 'upstream timed out' };
  if ((error as Error).name === 'AbortError')
    return { status: 499, message: 'client disconnected' };
  return { status: 502, message: `upstream unavailable (${code || (error as Error).message})` };
}

/** A provider's error answer's message (OpenAI and Anthropic both nest it in `error`), bounded. */
export function errorMessage(text: string): string {
  const parsed = safeJson(text) as { error?: { message?: unknown } } | undefined;
  const message = parsed?.error?.message;
  return typeof message === 'string' ? message : boundedText(text, 500);
}

export function safeJson(text: string, parse: (text: string) => unknown = JSON.parse): unknown {
  try {
    return parse(text);
  } catch {
    return undefined;
  }
}
