import { z } from 'zod';
import { isJsonObject, type JsonObject } from '../json/json-value.ts';
import { Conditions, defineResource, defineResourceInput, ResourceName } from './envelope.ts';
import { MCP_LIMITS, McpServerHeader, UpstreamUrl } from './mcp-server.ts';
import { DurationText } from './mediation-policy.ts';

/**
 * A tool the gateway itself executes (docs/hosted-tools.md): to the model it is an ordinary
 * declared tool (`declared_by: wardwright`, `executed_by: wardwright`); when the model calls it,
 * the gateway POSTs the call's arguments to the operator's HTTP endpoint, hands the answer back
 * to the model and calls the provider again (the tool loop), so the agent never holds the
 * backend's key. A policy rule `action: host` offers it to the requests it matches.
 */

/** Bounds of a hosted tool's endpoint call. */
export const HOSTED_TOOL_LIMITS = {
  /** Default and ceiling of the answer's size the gateway reads (bytes). */
  defaultResponseBytes: 256 * 1024,
  maxResponseBytes: 4 * 1024 * 1024,
  maxRetries: 3,
  redactPaths: 100,
} as const;

/** What the model calls it: a provider-legal function name. */
export const HostedToolName = z
  .string()
  .regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must match ^[a-zA-Z0-9_-]{1,64}$ (provider name rules)');

const JsonSchemaObject = z.custom<JsonObject>((v) => isJsonObject(v), 'must be a JSON object');

export const HostedToolEndpoint = z
  .object({
    /** Receives `POST` with the call's arguments as the JSON body. */
    url: UpstreamUrl,
    /** Sent with every call; credentials only by `secretRef.env` (the gateway's environment). */
    headers: z
      .array(McpServerHeader)
      .max(MCP_LIMITS.headers, `must have at most ${MCP_LIMITS.headers} headers`)
      .optional(),
    /** Per attempt; the call fails as `timeout` after it. */
    timeout: DurationText(100, 120_000, 'between 100ms and 120s').default('10s'),
    /** Further attempts after a connection error or a 5xx; off by default (calls may not be idempotent). */
    retries: z.number().int().min(0).max(HOSTED_TOOL_LIMITS.maxRetries).default(0),
    /** Bytes of the answer read at most; a longer one fails as `too_large`. */
    maxResponseBytes: z
      .number()
      .int()
      .min(1)
      .max(HOSTED_TOOL_LIMITS.maxResponseBytes)
      .default(HOSTED_TOOL_LIMITS.defaultResponseBytes),
  })
  .strict();
export type HostedToolEndpoint = z.infer<typeof HostedToolEndpoint>;

export const HostedToolSpec = z
  .object({
    /** The declaration the model sees. */
    tool: z
      .object({
        name: HostedToolName,
        description: z.string().min(1).max(4096, 'must be at most 4096 characters'),
        /** JSON Schema of the arguments (an object schema). */
        parameters: JsonSchemaObject.default({ type: 'object', properties: {} }),
      })
      .strict(),
    endpoint: HostedToolEndpoint,
    /**
     * Dotted paths in the endpoint's JSON answer (e.g. `debug.token`) replaced by `[REDACTED]`
     * before the model sees the result or it is hashed into a receipt.
     */
    redact: z
      .array(z.string().min(1).max(256))
      .max(
        HOSTED_TOOL_LIMITS.redactPaths,
        `must have at most ${HOSTED_TOOL_LIMITS.redactPaths} paths`,
      )
      .optional(),
    description: z.string().max(1024, 'must be at most 1024 characters').optional(),
  })
  .strict();
export type HostedToolSpec = z.infer<typeof HostedToolSpec>;
export type HostedToolSpecInput = z.input<typeof HostedToolSpec>;

export const HostedToolStatus = z.object({ conditions: Conditions.default([]) });
export type HostedToolStatus = z.infer<typeof HostedToolStatus>;

export const HostedTool = defineResource('HostedTool', HostedToolSpec, HostedToolStatus);
export type HostedTool = z.infer<typeof HostedTool>;

export const HostedToolInput = defineResourceInput('HostedTool', HostedToolSpec);
export type HostedToolInput = z.infer<typeof HostedToolInput>;

/** What a gateway's bundle says of one HostedTool: its name and spec (secrets by reference only). */
export const BundleHostedTool = z.object({ name: ResourceName, spec: HostedToolSpec });
export type BundleHostedTool = z.infer<typeof BundleHostedTool>;
