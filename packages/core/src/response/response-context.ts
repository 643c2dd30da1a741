import type { HostedToolEvidence, ToolCallEvidence } from '../receipt/receipt-schema.ts';
import type { Surface } from '../resources/vocabulary.ts';

/**
 * What the response side needs to know about the mediated request: produced by the request
 * side (`mediateRequest`), consumed by the non-streaming enforcer and the streaming transformer.
 */
export interface ResponseContext {
  readonly surface: Surface;
  /**
   * Judges one tool call the provider returned. `providerName` is the name as the provider
   * used it; `rawArguments` is the complete arguments value (OpenAI: the JSON string;
   * Anthropic: the `input` object). Deterministic; never throws.
   */
  decideCall(id: string, providerName: string, rawArguments: unknown): ToolCallEvidence;
  /**
   * Maps a provider-hosted tool event to its capability contract with the profile's fidelity.
   * `providerType` is e.g. `server_tool_use:web_search`, `web_search_tool_result`,
   * `url_citation`. Returns the evidence, including `policy_state` (`blocked` when the tool was
   * not provider-visible, in which case the event must not reach the agent).
   */
  describeHostedEvent(event: HostedEventInput): HostedToolEvidence;
}

export interface HostedEventInput {
  id?: string;
  /**
   * `server_tool_use`, `mcp_tool_use`, `web_search_tool_result`, `url_citation`; OpenAI
   * Responses output items such as `web_search_call`, `mcp_call`, …
   */
  providerType: string;
  /**
   * Tool name for `*_tool_use` blocks (`web_search`, `code_execution`, …); for an MCP connector
   * call `server/tool`.
   */
  name?: string;
  /** The MCP connector server an `mcp_tool_use` names (`server_name`). */
  server?: string;
  input?: unknown;
  sources?: string[];
  error?: string;
  /** The provider's execution container the event ran in (a code interpreter's `container_id`). */
  container?: string;
}
