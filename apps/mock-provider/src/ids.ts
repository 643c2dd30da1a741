import { createHash } from 'node:crypto';

/**
 * Everything that would be random in a real provider (ids, token counts) is derived from the
 * request instead, so the same request always gets the same answer and tests can assert it.
 */
export function hashOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

/** The hash ids derive from: the request minus its stream flags, so streaming changes no id. */
export function conversationHash(body: unknown): string {
  const {
    stream: _stream,
    stream_options: _options,
    ...conversation
  } = (body ?? {}) as Record<string, unknown>;
  return hashOf(conversation);
}

/** `prefix` + 24 hex characters derived from the request hash and a purpose (`'message'`, `'call:0'`). */
export function deriveId(prefix: string, requestHash: string, purpose: string): string {
  return `${prefix}${hashOf(`${requestHash}:${purpose}`).slice(0, 24)}`;
}

/** A stable stand-in for a tokenizer: about four characters per token, at least one. */
export function estimateTokens(value: unknown): number {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? '');
  return Math.max(1, Math.ceil(text.length / 4));
}
