import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  ListRootsRequestSchema,
  ListRootsResultSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/**
 * Requests the upstream server sends the agent (MCP's client features): `sampling/createMessage`,
 * `elicitation/create` and `roots/list`. The gateway's upstream client declares each only when
 * the agent declared it in its own `initialize`, so a server never asks the agent for what it
 * cannot do; each such request is relayed to the agent's session and its answer, checked
 * against the method's result schema, relayed back. They travel on the agent's standalone GET
 * stream (the SDK client opens it after `initialize`), not on the stream of the `tools/call`
 * that caused them: an agent with no GET stream open gets nothing and the upstream's request
 * times out (docs/mcp.md).
 */

/** The agent's client capabilities (its `initialize` params) the upstream client declares. */
export function relayedCapabilities(initialize: unknown): ClientCapabilities {
  const parsed = InitializeCapabilities.safeParse(initialize);
  if (!parsed.success) return {};
  const declared = parsed.data.params.capabilities;
  const relayed: ClientCapabilities = {};
  if (declared.sampling !== undefined) relayed.sampling = {};
  if (declared.elicitation !== undefined) relayed.elicitation = declared.elicitation;
  if (declared.roots !== undefined) relayed.roots = { listChanged: false };
  return relayed;
}

/** The capability objects only (bounded by the body limit; their content is the agent's). */
const InitializeCapabilities = z.object({
  params: z.object({
    capabilities: z.object({
      sampling: z.object({}).passthrough().optional(),
      elicitation: z
        .object({
          form: z.object({}).passthrough().optional(),
          url: z.object({}).passthrough().optional(),
        })
        .optional(),
      roots: z.object({}).passthrough().optional(),
    }),
  }),
});

/** What happened to one relayed request, for its receipt. */
export interface RelayedRequest {
  method: string;
  ok: boolean;
  error?: { code: number; message: string };
  ms: number;
}

/**
 * Registers, on the upstream `client`, a handler per client feature it declared, that asks the
 * `agent` (the session's SDK `Server`) and answers with what the agent said; `finished` is told
 * of each (the session receipts it). An agent's error goes back to the upstream as its own
 * JSON-RPC error; a timeout or a malformed answer as an internal error.
 */
export function relayAgentRequests(
  client: Client,
  agent: Server,
  options: {
    /** What the upstream client declared (`relayedCapabilities`): one handler per feature. */
    declared: ClientCapabilities;
    timeoutMs: number;
    finished: (relayed: RelayedRequest) => Promise<void>;
  },
): void {
  const { declared } = options;
  const relay = async <R>(
    method: string,
    params: unknown,
    schema: z.ZodType<R>,
    signal: AbortSignal,
  ): Promise<R> => {
    const started = performance.now();
    let result: R;
    try {
      result = (await agent.request({ method, params } as never, schema as never, {
        signal,
        timeout: options.timeoutMs,
      })) as R;
    } catch (error) {
      const failure =
        error instanceof McpError
          ? { code: error.code, message: error.message.replace(/^(MCP error -?\d+: )+/, '') }
          : { code: ErrorCode.InternalError, message: "the agent's answer could not be used" };
      await options.finished({
        method,
        ok: false,
        error: failure,
        ms: performance.now() - started,
      });
      // Not an McpError: its message would carry the SDK's "MCP error <code>: " prefix upstream,
      // where the upstream's SDK adds its own.
      throw Object.assign(new Error(failure.message), { code: failure.code });
    }
    // Not recorded, not answered: `finished` throws the error the upstream gets instead.
    await options.finished({ method, ok: true, ms: performance.now() - started });
    return result;
  };
  if (declared.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
      relay(request.method, request.params, CreateMessageResultSchema, extra.signal),
    );
  }
  if (declared.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      relay(request.method, request.params, ElicitResultSchema, extra.signal),
    );
  }
  if (declared.roots) {
    client.setRequestHandler(ListRootsRequestSchema, (request, extra) =>
      relay(request.method, request.params, ListRootsResultSchema, extra.signal),
    );
  }
}
