import type { JsonObject, JsonValue } from '../json/json-value.ts';
import { boundedText, isWellFormedString } from '../json/well-formed-text.ts';
import { scrubSecrets } from '../secrets.ts';

/** Longest error message passed on, as for the other surfaces' errors (provider-error.ts). */
const MAX_MESSAGE = 2000;
const MAX_SHORT = 200;

/**
 * An OpenAI Responses stream `error` event (`{type: "error", code, message, param,
 * sequence_number}`) as it may reach the agent: those fields only, the message scrubbed of
 * secrets and bounded, so an error event is never a way to carry anything else.
 */
export function responsesErrorEvent(data: JsonObject): JsonObject {
  const message =
    typeof data.message === 'string' ? data.message : 'the provider reported a stream error';
  const out: JsonObject = {
    type: 'error',
    code: shortString(data.code),
    message: scrubSecrets(boundedText(message, MAX_MESSAGE + 1)),
    param: shortString(data.param),
  };
  if (typeof data.sequence_number === 'number') out.sequence_number = data.sequence_number;
  return out;
}

/**
 * The error event the gateway sends when the stream fails on its side (upstream cut, receipt
 * not recorded): the Responses `error` event, with the `error` object as well, on which the
 * `openai` SDK's stream raises an APIError.
 */
export function responsesStreamFailure(message: string, code: string): string {
  const error = { message, type: 'api_error', param: null, code };
  const data = { type: 'error', code, message, param: null, error };
  return `event: error\ndata: ${JSON.stringify(data)}\n\n`;
}

function shortString(value: JsonValue | undefined): string | null {
  if (typeof value !== 'string' || value.length > MAX_SHORT || !isWellFormedString(value)) {
    return null;
  }
  return scrubSecrets(value);
}
