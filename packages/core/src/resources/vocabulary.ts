import { z } from 'zod';

/**
 * The API surfaces the gateway speaks: the LLM provider APIs (OpenAI Chat Completions, Anthropic
 * Messages, OpenAI Responses, Gemini), and MCP (its `/mcp/<server>` routes, docs/mcp.md).
 */
export const Surface = z.enum([
  'openai-chat',
  'anthropic-messages',
  'openai-responses',
  'gemini',
  'mcp',
]);
export type Surface = z.infer<typeof Surface>;
/** The LLM provider surfaces: what the provider proxy, SSE enforcement and provider errors speak. */
export type ProviderSurface = Exclude<Surface, 'mcp'>;

/** Who introduced a capability into the request. */
export const DeclaredBy = z.enum(['agent', 'wardwright', 'provider', 'mcp', 'framework']);
export type DeclaredBy = z.infer<typeof DeclaredBy>;

/** Who actually runs a tool when the model calls it. */
export const ExecutedBy = z.enum(['agent', 'wardwright', 'provider', 'remote_mcp']);
export type ExecutedBy = z.infer<typeof ExecutedBy>;

/** What the policy did to a tool (request side) or a tool call (response side). */
export const PolicyState = z.enum([
  'allowed',
  'hidden',
  'blocked',
  'wrapped',
  'replaced',
  'deferred',
  'opaque',
]);
export type PolicyState = z.infer<typeof PolicyState>;

/** How much of a tool's behaviour Toolgate can prove, weakest last. */
export const Fidelity = z.enum([
  'pass_through',
  'normalized',
  'emulated',
  'provider_attested',
  'opaque',
]);
export type Fidelity = z.infer<typeof Fidelity>;

/** Policy modes, from least to most powerful. */
export const MediationMode = z.enum(['observe', 'patch', 'mutate', 'execute']);
export type MediationMode = z.infer<typeof MediationMode>;

/**
 * How a request's identity was bound. `verified`: proven by the agent's Toolgate token.
 * `claimed`: only headers name it, but every name is a known agent identity (not a proof).
 * `unverified`: nothing proves it (unknown names, no names, or a token that proves nothing).
 * `rejected`: not proven and refused by policy (`unknownIdentities: reject`).
 */
export const IdentityBinding = z.enum(['verified', 'claimed', 'unverified', 'rejected']);
export type IdentityBinding = z.infer<typeof IdentityBinding>;

/** The six seeded capability contracts. */
export const CAPABILITY_CONTRACT_IDS = [
  'wardwright.web_search.v1',
  'wardwright.url_fetch.v1',
  'wardwright.file_search.v1',
  'wardwright.code_exec.v1',
  'wardwright.computer_use.v1',
  'wardwright.mcp_tool.v1',
] as const;
export type CapabilityContractId = (typeof CAPABILITY_CONTRACT_IDS)[number];
