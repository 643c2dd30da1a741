import { isJsonObject, type JsonObject, type JsonValue } from '../json/json-value.ts';
import { boundedText, isWellFormedString } from '../json/well-formed-text.ts';
import type { Surface } from '../resources/vocabulary.ts';
import { scrubSecrets } from '../secrets.ts';

/** Longest error message passed on to the agent, in UTF-16 units. */
const MAX_MESSAGE = 2000;
/** Longest short string (an error `type`, `code`, `param`, a detail value). */
const MAX_SHORT = 200;
/** Most `details` members (Anthropic) kept, and most items of one list-valued member. */
const MAX_DETAILS = 20;

/**
 * Machine-readable extras of an Anthropic error (`error.details`), e.g.
 * `{error_code: 'thread_unsupported_request', unsupported: ['…']}`: flat values and lists of
 * them only, so nothing shaped like a content block can ride along.
 */
export type ProviderErrorDetails = Record<string, string | number | boolean | string[]>;

/**
 * An error in the shape the agent's SDK expects from its provider, so `openai` and
 * `@anthropic-ai/sdk` raise their usual typed errors (Anthropic's SDK also reads
 * `error.details.error_code`).
 */
export function providerError(
  surface: Surface,
  status: number,
  message: string,
  details?: ProviderErrorDetails,
): JsonObject {
  if (surface === 'anthropic-messages') {
    const error: JsonObject = { type: anthropicType(status), message };
    if (details !== undefined) error.details = details;
    return { type: 'error', error };
  }
  if (surface === 'gemini')
    return { error: { code: status, message, status: googleStatus(status) } };
  return { error: { message, type: openAIType(status), param: null, code: null } };
}

/** {@link providerError} as the JSON text of an answer or event. */
export function providerErrorJson(
  surface: Surface,
  status: number,
  message: string,
  details?: ProviderErrorDetails,
): string {
  return JSON.stringify(providerError(surface, status, message, details));
}

/**
 * The provider's error answer (`status` ≥ 400, body `text`) as it may reach the agent: only the
 * provider's error object survives — its message (secrets scrubbed, bounded), type, code and
 * param, and for Anthropic the flat `details` and `request_id`. Anything else the body carries
 * (`choices[].message.tool_calls`, `content[]` with `tool_use` blocks, a whole completion) is
 * dropped: an error is never a way to hand the agent a call the policy did not judge. A body
 * that is not a provider error at all becomes one carrying the start of its text.
 */
export function sanitizeProviderError(surface: Surface, status: number, text: string): string {
  const parsed = parseJson(text);
  const error = isJsonObject(parsed) && isJsonObject(parsed.error) ? parsed.error : undefined;
  const rawMessage = error !== undefined ? error.message : undefined;
  const message = cleanText(
    typeof rawMessage === 'string' ? rawMessage : text.trim() === '' ? `HTTP ${status}` : text,
    MAX_MESSAGE,
  );
  if (error === undefined) return providerErrorJson(surface, status, message);

  let clean: JsonObject;
  if (surface === 'anthropic-messages') {
    clean = { type: 'error', error: anthropicError(error, status, message) };
    const requestId = shortString((parsed as JsonObject).request_id);
    if (requestId !== undefined) clean.request_id = requestId;
  } else if (surface === 'gemini') {
    clean = { error: googleError(error, status, message) };
  } else {
    clean = { error: openAIError(error, status, message) };
  }
  const out = JSON.stringify(clean);
  // A clean error goes on byte for byte.
  return out === JSON.stringify(parsed) ? text : out;
}

function openAIError(error: JsonObject, status: number, message: string): JsonObject {
  const out: JsonObject = { message, type: shortString(error.type) ?? openAIType(status) };
  // `param` and `code` only when the provider sent them, so a clean error stays as it was.
  if ('param' in error) out.param = shortString(error.param) ?? null;
  if ('code' in error) {
    out.code = shortString(error.code) ?? (typeof error.code === 'number' ? error.code : null);
  }
  return out;
}

/** Google's `{code, message, status}`; `details` (typed protobuf messages) is dropped. */
function googleError(error: JsonObject, status: number, message: string): JsonObject {
  const code = error.code;
  return {
    code: typeof code === 'number' && Number.isInteger(code) ? code : status,
    message,
    status: shortString(error.status) ?? googleStatus(status),
  };
}

function anthropicError(error: JsonObject, status: number, message: string): JsonObject {
  const out: JsonObject = { type: shortString(error.type) ?? anthropicType(status), message };
  const details = flatDetails(error.details);
  if (details !== undefined) out.details = details;
  return out;
}

function flatDetails(details: JsonValue | undefined): ProviderErrorDetails | undefined {
  if (!isJsonObject(details)) return undefined;
  const out: ProviderErrorDetails = {};
  let kept = 0;
  for (const [key, value] of Object.entries(details)) {
    if (kept >= MAX_DETAILS) break;
    const name = shortString(key);
    if (name === undefined) continue;
    let flat: string | number | boolean | string[] | undefined;
    if (typeof value === 'number' || typeof value === 'boolean') flat = value;
    else if (typeof value === 'string') flat = shortString(value);
    else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
      flat = value.slice(0, MAX_DETAILS).flatMap((item) => shortString(item) ?? []);
    }
    if (flat === undefined) continue;
    out[name] = flat;
    kept++;
  }
  return kept > 0 ? out : undefined;
}

/** A short well-formed string, or undefined for anything else. */
function shortString(value: JsonValue | undefined): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_SHORT || !isWellFormedString(value)) {
    return undefined;
  }
  return scrubSecrets(value);
}

/** Text bounded to `max` units (and `…`), lone surrogates replaced, secrets scrubbed. */
function cleanText(text: string, max: number): string {
  return scrubSecrets(boundedText(text, max + 1));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function openAIType(status: number): string {
  if (status === 400 || status === 422) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  return 'api_error';
}

/** The canonical Google RPC status an HTTP status stands for (google.rpc.Code). */
function googleStatus(status: number): string {
  if (status === 400 || status === 413 || status === 422) return 'INVALID_ARGUMENT';
  if (status === 401) return 'UNAUTHENTICATED';
  if (status === 403) return 'PERMISSION_DENIED';
  if (status === 404) return 'NOT_FOUND';
  if (status === 409) return 'ABORTED';
  if (status === 429) return 'RESOURCE_EXHAUSTED';
  if (status === 499) return 'CANCELLED';
  if (status === 501) return 'UNIMPLEMENTED';
  if (status === 502 || status === 503) return 'UNAVAILABLE';
  if (status === 504) return 'DEADLINE_EXCEEDED';
  return status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION';
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
