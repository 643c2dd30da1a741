import { illFormedPathInJson } from '@toolgate/core';

/**
 * What the gateway checks of an agent's body for its receipt before the provider is called: a
 * request whose receipt could not be built is refused (400, naming the field), never forwarded.
 * The body's tools and model are bounded by the engine (RECEIPT_LIMITS), identity headers by
 * readAgentIdentity.
 */

/** An agent request the receipt could not hold: a 400 naming the field. */
export class UnrecordableRequestError extends Error {}

/**
 * Refuses a body holding a lone UTF-16 surrogate (`"model": "gpt\ud800"`): canonical JSON, the
 * receipt's hash and PostgreSQL cannot take one, so its receipt could not be built. One regex
 * scan of the text for a well-formed request.
 */
export function checkWellFormed(text: string, body: unknown): void {
  const path = illFormedPathInJson(text, body);
  if (path !== undefined) {
    throw new UnrecordableRequestError(
      `${path}: holds a lone UTF-16 surrogate (not valid Unicode text)`,
    );
  }
}
