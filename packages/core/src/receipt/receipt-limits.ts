/**
 * How much of what an agent or a provider sends may land in a receipt. One receipt must always
 * build, hash and ship whatever the input (a 9 MB `model` once made a receipt larger than the
 * API's body limit, and the shipper retried it forever), so:
 *
 * - agent-controlled values are checked before the provider is called and refused (400, naming
 *   the field) past these limits: the gateway never forwards a request whose receipt could not
 *   hold them;
 * - provider-controlled values cannot be refused (the provider has answered already): they are
 *   cut to these limits, lone surrogates replaced, and the receipt lists what it cut in
 *   `truncated_paths`.
 *
 * Lengths are in UTF-16 code units (JavaScript string length).
 */
export const RECEIPT_LIMITS = {
  /** `model` of the request (agent): refused above it. */
  model: 256,
  /** `x-user-id`, `x-service-id`, `x-session-id` (agent): refused above it. */
  identityClaim: 256,
  /** A tool's (or MCP server's) name in the request (agent): refused above it. */
  toolName: 256,
  /** A tool's `type` in the request (agent): refused above it. */
  toolType: 128,
  /** Tools (and request-level tools such as MCP servers) in one request (agent): refused above it. */
  tools: 512,
  /** `outcome.error` (the provider's error message, scrubbed): cut to this. */
  errorMessage: 1024,
  /** Any other text of the response evidence (provider): cut to this. */
  evidenceText: 256,
  /** A call decision's `message` (what the agent was told; a policy's `message` is ≤ 1024). */
  decisionMessage: 2048,
  /** A source URL of a hosted tool event (provider): cut to this. */
  sourceUrl: 1024,
  /** Sources kept per hosted tool event. */
  sourcesPerEvent: 8,
  /** Redacted argument paths kept per tool call. */
  redactedArgumentsPerCall: 8,
  /** Entries of `redacted_paths` kept. */
  redactedPaths: 16,
  /** Entries of `truncated_paths` kept (lists cut as a whole are always among them). */
  truncatedPaths: 32,
  /**
   * UTF-8 bytes of response evidence (tool calls and hosted tool events, as JSON) kept: entries
   * past it are dropped and the list is named in `truncated_paths`.
   */
  responseEvidenceBytes: 32 * 1024,
  /**
   * Tool results (agent) recorded per request: an agent may send back many parallel results,
   * which the provider judges, so past it the rest are not recorded (`tool_results` is named in
   * `truncated_paths`) rather than the request refused.
   */
  toolResults: 64,
  /** A result's `tool_call_id` (agent, echoing the provider's id): cut to this, as the call's id is. */
  toolCallId: 256,
  /** UTF-8 bytes of `tool_results` (as JSON) kept: entries past it are dropped, as evidence is. */
  toolResultsBytes: 16 * 1024,
} as const;

/**
 * The most a stored receipt's JSON can weigh, in UTF-8 bytes, apart from its bundle's policy
 * revisions (operator data: {@link STORED_RECEIPT_BYTES_PER_POLICY} each). Worst case: every
 * bounded field full of characters JSON escapes as `\u00XX` (6 bytes each).
 */
export const MAX_STORED_RECEIPT_BYTES = 112 * 1024;
export const STORED_RECEIPT_BYTES_PER_POLICY = 512;

/** What is wrong with agent text holding U+0000, which PostgreSQL's text and jsonb cannot store. */
export const NUL_PROBLEM = 'must not contain U+0000';

/**
 * Why an agent's text cannot go into a receipt as it is, or undefined when it can: longer than
 * `max`, or holding U+0000 (PostgreSQL text cannot store it). Lone surrogates are refused for
 * the whole body before this (`illFormedPathInJson`).
 */
export function receiptTextProblem(value: string, max: number): string | undefined {
  if (value.length > max) return `must be at most ${max} characters`;
  if (value.includes('\u0000')) return NUL_PROBLEM;
  return undefined;
}
