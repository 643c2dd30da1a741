import { isJsonObject, jsonObjectUtf8, type ProviderSurface, RequestParser } from '@toolgate/core';
import { safeJson } from './provider-errors.ts';

/**
 * Non-streaming provider answers, read and written back. Responses answers echo the request's
 * `tools` (the provider-visible declarations, the same text turn after turn): they are parsed
 * like agent requests, so a known echo is not parsed again, and its remembered text is written
 * back without serializing it (docs/gateway.md, the hot path). What the agent gets is always
 * `JSON.stringify` of the full parse, enforced, never the provider's own text.
 */
export class AnswerJson {
  private readonly responses = new RequestParser();
  private readonly parseResponses = (text: string): unknown => this.responses.parse(text);

  /** The answer parsed, or undefined when it is not JSON. */
  parse(surface: ProviderSurface, text: string): unknown {
    return surface === 'openai-responses' ? safeJson(text, this.parseResponses) : safeJson(text);
  }

  /** Exactly `JSON.stringify(body)`, with remembered texts written as they are. */
  payload(body: unknown): string | Buffer {
    return isJsonObject(body) ? Buffer.concat(jsonObjectUtf8(body)) : JSON.stringify(body);
  }
}
