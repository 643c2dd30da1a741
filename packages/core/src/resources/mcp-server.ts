import { z } from 'zod';
import { hashCanonical } from '../hash/hash.ts';
import { isJsonObject, type JsonObject } from '../json/json-value.ts';
import { SECRET_PARAMETER_NAME, scrubSecrets } from '../secrets.ts';
import {
  Conditions,
  defineResource,
  defineResourceInput,
  ResourceName,
  Timestamp,
} from './envelope.ts';

/**
 * An MCP server behind the gateway (docs/mcp.md). Agents reach it at the gateway's
 * `/mcp/<name>`, which speaks MCP Streamable HTTP on both sides: the same MediationPolicy governs
 * its tools (named `<name>/<tool>` for matching, `declared_by: mcp`), and every `tools/call` gets
 * a receipt. Only Streamable HTTP upstreams: stdio servers are out of scope (run them behind a
 * Streamable HTTP bridge).
 *
 * Drift pinning: the first definition of each tool any gateway saw is pinned (its content hash);
 * a later change is a drift, recorded in the status. With `drift: block` a drifted tool is hidden
 * until an operator accepts the new definition. The status is written by the API alone, from the
 * gateways' observations and operators' accepts.
 */

const SHA256 = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" + 64 hex digits');

/** An environment variable of the gateway: where a header's secret value lives. */
const EnvName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]{0,127}$/,
    'must be an environment variable name such as MCP_TOKEN',
  );

/** Header names whose value is a credential: given by `secretRef` only, never stored in the API. */
const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|cookie)$/i;

/** The most tools one server may list (across pages), and the most drift events kept. */
export const MCP_LIMITS = {
  tools: 1024,
  headers: 16,
  /** Canonical JSON bytes of one tool definition. */
  definitionBytes: 64 * 1024,
  drifts: 200,
  /** MCP's own bound on a tool name (1–128 of `A-Za-z0-9_-.`, plus `/` some servers use). */
  toolName: 128,
} as const;

/** A tool name as MCP servers spell it. */
export const McpToolName = z
  .string()
  .min(1, 'must not be empty')
  .max(MCP_LIMITS.toolName, `must be at most ${MCP_LIMITS.toolName} characters`)
  .regex(/^[A-Za-z0-9_.\-/]+$/, "must consist of letters, digits, '_', '-', '.' or '/'");

export const McpServerHeader = z
  .object({
    name: z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/, 'must be an HTTP header name'),
    /** A plain value (no credentials: those go in `secretRef`). */
    value: z
      .string()
      .max(4096, 'must be at most 4096 characters')
      .regex(/^[^\r\n\0]*$/, 'must not contain line breaks or NUL')
      .optional(),
    /** Read from the gateway's environment when it connects: the API never holds the secret. */
    secretRef: z.object({ env: EnvName }).strict().optional(),
  })
  .strict()
  .superRefine((header, ctx) => {
    if ((header.value === undefined) === (header.secretRef === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'must have exactly one of value and secretRef' });
      return;
    }
    if (header.value === undefined) return;
    if (CREDENTIAL_HEADER.test(header.name) || SECRET_PARAMETER_NAME.test(header.name)) {
      ctx.addIssue({
        code: 'custom',
        path: ['value'],
        message: `${header.name} carries a credential: give it as secretRef.env, not value`,
      });
    } else if (scrubSecrets(header.value) !== header.value) {
      ctx.addIssue({
        code: 'custom',
        path: ['value'],
        message: 'looks like a credential: give it as secretRef.env, not value',
      });
    }
  });
export type McpServerHeader = z.infer<typeof McpServerHeader>;

/** An absolute http(s) URL without credentials or a fragment: an upstream the gateway calls. */
export const UpstreamUrl = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .superRefine((text, ctx) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute http(s) URL' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: 'must be an http or https URL (Streamable HTTP)' });
    } else if (url.username !== '' || url.password !== '') {
      ctx.addIssue({
        code: 'custom',
        message: 'must not carry credentials: use headers.secretRef',
      });
    } else if (scrubSecrets(text) !== text) {
      ctx.addIssue({
        code: 'custom',
        message: 'must not carry credentials: use headers.secretRef',
      });
    } else if (url.hash !== '') {
      ctx.addIssue({ code: 'custom', message: 'must not have a fragment' });
    }
  });

export const DriftMode = z.enum(['warn', 'block']);
export type DriftMode = z.infer<typeof DriftMode>;

export const McpServerSpec = z
  .object({
    /** The upstream's Streamable HTTP endpoint. */
    url: UpstreamUrl,
    headers: z
      .array(McpServerHeader)
      .max(MCP_LIMITS.headers, `must have at most ${MCP_LIMITS.headers} headers`)
      .superRefine((headers, ctx) => {
        const seen = new Set<string>();
        headers.forEach((header, i) => {
          const key = header.name.toLowerCase();
          if (seen.has(key)) {
            ctx.addIssue({ code: 'custom', path: [i, 'name'], message: 'is given twice' });
          }
          seen.add(key);
        });
      })
      .optional(),
    /** What a changed tool definition does: `warn` records it, `block` hides the tool. */
    drift: DriftMode.default('warn'),
    description: z.string().max(1024, 'must be at most 1024 characters').optional(),
  })
  .strict();
export type McpServerSpec = z.infer<typeof McpServerSpec>;

/** One tool's pinned and latest definition, by content hash. */
export const McpToolPin = z.object({
  name: McpToolName,
  /** The accepted definition: the first one seen, or the one an operator accepted. */
  pinned: SHA256,
  /** The definition gateways last reported; differs from `pinned` while a drift is open. */
  latest: SHA256,
  firstSeenAt: Timestamp,
  firstSeenBy: ResourceName,
  lastSeenAt: Timestamp,
});
export type McpToolPin = z.infer<typeof McpToolPin>;

/**
 * A change of a tool's definition. `open` until an operator accepts it (`accepted`), the server
 * goes back to the pinned definition (`reverted`), or it changes again (`superseded`, by a newer
 * event).
 */
export const McpDrift = z.object({
  id: z.string().min(1).max(64),
  tool: McpToolName,
  from: SHA256,
  to: SHA256,
  detectedAt: Timestamp,
  detectedBy: ResourceName,
  state: z.enum(['open', 'accepted', 'reverted', 'superseded']),
  resolvedAt: Timestamp.optional(),
  resolvedBy: z.string().max(253).optional(),
});
export type McpDrift = z.infer<typeof McpDrift>;

export const McpServerStatus = z.object({
  conditions: Conditions.default([]),
  tools: z.array(McpToolPin).max(MCP_LIMITS.tools).default([]),
  /** Newest last; at most MCP_LIMITS.drifts (the oldest resolved ones are dropped first). */
  drifts: z.array(McpDrift).max(MCP_LIMITS.drifts).default([]),
  /** When a gateway last reported this server's tools. */
  observedAt: Timestamp.optional(),
});
export type McpServerStatus = z.infer<typeof McpServerStatus>;

export const McpServer = defineResource('McpServer', McpServerSpec, McpServerStatus);
export type McpServer = z.infer<typeof McpServer>;

export const McpServerInput = defineResourceInput('McpServer', McpServerSpec);
export type McpServerInput = z.infer<typeof McpServerInput>;

/**
 * The parts of an MCP `Tool` that define what the model is told and what the tool accepts and
 * returns: a change to any of them is a drift. `_meta` and `icons` are presentation, not contract.
 */
const DEFINITION_KEYS = [
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
] as const;

/**
 * The definition of an MCP tool as pinned: the defining keys of what the server listed, in a
 * fresh object. Throws on a value that is not an object with a valid `name`.
 */
export function mcpToolDefinition(tool: unknown): JsonObject {
  if (!isJsonObject(tool)) throw new TypeError('an MCP tool must be an object');
  McpToolName.parse(tool.name);
  const definition: JsonObject = {};
  for (const key of DEFINITION_KEYS) {
    const value = tool[key];
    if (value !== undefined) definition[key] = value;
  }
  return definition;
}

/** The content address of a tool definition: what pins and drift events compare. */
export function mcpToolDefinitionHash(definition: JsonObject): string {
  return hashCanonical(definition);
}

/** `POST …/mcpservers/{name}/observations`: the tools a gateway saw the server list. */
export const McpObservationInput = z
  .object({
    tools: z
      .array(z.object({ definition: z.record(z.string(), z.unknown()) }).strict())
      .max(MCP_LIMITS.tools, `must have at most ${MCP_LIMITS.tools} tools`),
  })
  .strict();
export type McpObservationInput = z.infer<typeof McpObservationInput>;

/** `POST …/mcpservers/{name}/accept`: pin a tool's latest (or the given) definition. */
export const McpAcceptInput = z
  .object({
    tool: McpToolName,
    /** Must be the tool's `latest`; defaults to it. */
    hash: SHA256.optional(),
  })
  .strict();
export type McpAcceptInput = z.infer<typeof McpAcceptInput>;

/** What a gateway's bundle says of one MCP server: where it is, and its pins. */
export const BundleMcpServer = z.object({
  name: ResourceName,
  url: z.string(),
  headers: z.array(McpServerHeader),
  drift: DriftMode,
  /** Tool name → pinned definition hash. A tool without a pin is new: pinned on first sight. */
  pins: z.record(z.string(), SHA256),
});
export type BundleMcpServer = z.infer<typeof BundleMcpServer>;
