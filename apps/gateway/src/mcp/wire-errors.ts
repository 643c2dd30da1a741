import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '@toolgate/core';

/**
 * How a JSON-RPC error goes on the wire to the agent, on both the SDK and the lean path. The
 * SDK's `McpError` puts `MCP error <code>: ` in front of its message, its `Protocol` sends that
 * message as it is, and the agent's SDK client, reading the error into an `McpError` of its own,
 * adds the prefix again ("MCP error -32602: MCP error -32602: Tool delete_repo is hidden by
 * policy"). The wire carries the message alone; the code is its own field.
 */
export function wireErrorMessage(code: number, message: string): string {
  const prefix = `MCP error ${code}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/** A handler's error as the SDK's `Protocol` answers it, less the prefix. */
export function wireError(error: unknown): JsonObject {
  const e = error as { code?: unknown; message?: unknown; data?: unknown };
  const code = Number.isSafeInteger(e.code) ? (e.code as number) : ErrorCode.InternalError;
  return {
    code,
    message: typeof e.message === 'string' ? wireErrorMessage(code, e.message) : 'Internal error',
    ...(e.data !== undefined ? { data: e.data as JsonObject } : {}),
  };
}

/**
 * The SDK path's one exit: every error response its `Server` sends the agent through this
 * transport has its message unprefixed, whoever threw it (our handlers, or the SDK's own
 * validation of a request's params).
 */
export function unprefixErrorsOf(transport: Transport): void {
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options) => {
    if ('error' in message && typeof message.error?.message === 'string') {
      const { error } = message;
      const stripped = wireErrorMessage(error.code, error.message);
      if (stripped !== error.message)
        return send({ ...message, error: { ...error, message: stripped } }, options);
    }
    return send(message, options);
  };
}
