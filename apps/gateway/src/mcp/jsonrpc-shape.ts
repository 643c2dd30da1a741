import type { JSONRPCRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * Structural checks of JSON-RPC envelopes for the hot path, equal to the SDK's zod schemas for
 * the envelope alone (`JSONRPCRequestSchema`, `JSONRPCResultResponseSchema`: strict objects, a
 * string or integer id). The SDK's union `JSONRPCMessageSchema` tries up to four strict schemas
 * per message and was the largest zod cost per call (bench/mcp/README.md); what is inside the
 * envelope (`params`, `result`) is still validated by the method's own schema.
 */

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const RESULT_KEYS = new Set(['jsonrpc', 'id', 'result']);

/** `RequestIdSchema`: a string, or an integer number. */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return Object.getOwnPropertySymbols(value).length === 0;
}

/**
 * A JSON-RPC request envelope (`JSONRPCRequestSchema` less its `params._meta` check, which every
 * method schema makes): `params`, when present, an object.
 */
export function isRequestEnvelope(value: unknown): value is JSONRPCRequest {
  return (
    isObject(value) &&
    value.jsonrpc === '2.0' &&
    isRequestId(value.id) &&
    typeof value.method === 'string' &&
    (value.params === undefined || isObject(value.params)) &&
    onlyKeys(value, REQUEST_KEYS)
  );
}

/** The success response to request `id` (`JSONRPCResultResponseSchema`, result an object). */
export function isResultFor(
  value: unknown,
  id: RequestId,
): value is { jsonrpc: '2.0'; id: RequestId; result: Record<string, unknown> } {
  return (
    isObject(value) &&
    value.jsonrpc === '2.0' &&
    value.id === id &&
    isObject(value.result) &&
    onlyKeys(value, RESULT_KEYS)
  );
}
