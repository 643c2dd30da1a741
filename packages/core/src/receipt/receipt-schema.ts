import { z } from 'zod';
import {
  DeclaredBy,
  ExecutedBy,
  Fidelity,
  IdentityBinding,
  MediationMode,
  PolicyState,
  Surface,
} from '../resources/vocabulary.ts';

const SchemaHash = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" + 64 hex digits');

/** A tool as listed in the mediation block: enough to find its schema by hash. */
export const ToolDescriptor = z.object({
  declared_by: DeclaredBy,
  name: z.string(),
  type: z.string(),
  schema_hash: SchemaHash,
});
export type ToolDescriptor = z.infer<typeof ToolDescriptor>;

export const AppliedRule = z.object({
  /** The rule's `id` within its policy. */
  id: z.string(),
  action: z.string(),
  /** Agent-facing names of the tools the rule changed. */
  matched_tools: z.array(z.string()),
  /** The policy the rule belongs to (several policies may select one gateway). */
  policy: z.string().optional(),
});
export type AppliedRule = z.infer<typeof AppliedRule>;

/**
 * The `wardwright_tool_mediation` block (SPEC §3). Present only when mediation changed the
 * provider request, or (in observe mode) would have: `observed_rules` then says what `patch`
 * would have done while `provider_visible_tools` equals `original_tools`.
 */
export const ToolMediationBlock = z.object({
  schema: z.literal('wardwright.tool_mediation.v1'),
  mode: MediationMode,
  applied_rules: z.array(AppliedRule),
  original_tools: z.array(ToolDescriptor),
  provider_visible_tools: z.array(ToolDescriptor),
  observed_rules: z.array(AppliedRule).optional(),
  /** `rule_error:<rule id>` for each rule whose `when:` failed at run time (optional: old receipts). */
  annotations: z.array(z.string()).optional(),
});
export type ToolMediationBlock = z.infer<typeof ToolMediationBlock>;

/** The per-tool model the engine tracks for every tool in the original request. */
export const ToolRecord = z.object({
  /** Agent-facing name. */
  name: z.string(),
  /** Name the provider sees, when it differs (rename or automatic alias). */
  provider_name: z.string().optional(),
  type: z.string(),
  declared_by: DeclaredBy,
  executed_by: ExecutedBy,
  visible_to_provider: z.boolean(),
  visible_to_agent: z.boolean(),
  policy_state: PolicyState,
  fidelity: Fidelity,
  /** Capability contract, for provider-hosted tools. */
  capability: z.string().optional(),
  schema_hash: SchemaHash,
});
export type ToolRecord = z.infer<typeof ToolRecord>;

/** One tool call the provider returned, as the policy judged it. */
/**
 * What call-time rules (deny, require_approval, rate_limit) decided for one call. Present when
 * at least one call-time rule's selectors matched the call.
 */
export const CallDecision = z.object({
  outcome: z.enum(['allow', 'deny', 'approval_required', 'approved', 'rate_limited']),
  /** The rule that decided (absent for `allow`: no rule withheld the call). */
  rule: z.string().optional(),
  policy: z.string().optional(),
  /** What the agent was told in place of the call (the rule's `message`, or a default). */
  message: z.string().optional(),
  /** The ToolCallApproval's name (the call's `action_id`) for approval outcomes. */
  approval: z.string().optional(),
  /**
   * What the observe-mode call-time rules would have decided had they been enforced (no
   * approval requested; their rate limits counted apart); present only when they would have
   * withheld the call.
   */
  observed: z
    .object({
      outcome: z.enum(['deny', 'approval_required', 'rate_limited']),
      rule: z.string().optional(),
      policy: z.string().optional(),
    })
    .optional(),
});
export type CallDecision = z.infer<typeof CallDecision>;
export type CallOutcome = CallDecision['outcome'];

export const ToolCallEvidence = z.object({
  /** The provider's call id (`call_…`, `toolu_…`). */
  id: z.string(),
  /** Name as the agent sees it (renamed back). */
  name: z.string(),
  /** Name the provider used, when it differs. */
  provider_name: z.string().optional(),
  /** For meta-tools such as `mcp_tool`: the real `server/tool` the call targets. */
  resolved_tool: z.string().optional(),
  /**
   * The capability contract of the typed tool the call invokes, when it has one (a computer use
   * action: `wardwright.computer_use.v1`). Absent for function tools, which have no contract.
   */
  capability: z.string().optional(),
  arguments_hash: SchemaHash,
  /** AARM-style deterministic action id: same call, same id. */
  action_id: z.string(),
  /** `deferred`: withheld until a human approves it (require_approval). */
  policy_state: z.enum(['allowed', 'blocked', 'deferred']),
  /**
   * Why a call was withheld: `hidden`, `not_declared`, `rule:<id>`, or `rule_error:<id>` when a
   * call-time rule's `when` failed at run time (the call is withheld: fail closed).
   */
  reason: z.string().optional(),
  decision: CallDecision.optional(),
  /** Argument paths redacted before hashing (secrets never reach a receipt, not even hashed). */
  redacted_arguments: z.array(z.string()).optional(),
});
export type ToolCallEvidence = z.infer<typeof ToolCallEvidence>;

/** A provider-hosted tool event (web search, code execution, …) mapped to its contract. */
export const HostedToolEvidence = z.object({
  id: z.string().optional(),
  capability: z.string(),
  /** The provider's native type, e.g. `server_tool_use:web_search` or `url_citation`. */
  provider_type: z.string(),
  name: z.string(),
  fidelity: Fidelity,
  input_hash: SchemaHash.optional(),
  policy_state: z.enum(['allowed', 'blocked', 'opaque']),
  /**
   * Sources the provider cited or fetched (URLs), or the files it searched (`file_id`s), when it
   * exposes them.
   */
  sources: z.array(z.string()).optional(),
  error: z.string().optional(),
  /** The provider's execution container, when the event names one (a code interpreter's). */
  container: z.string().optional(),
  /**
   * The MCP server (`server_label`) of an event that names a server but no tool: an OpenAI
   * Responses `mcp_list_tools`. A call's server is the first segment of its `name`.
   */
  server: z.string().optional(),
});
export type HostedToolEvidence = z.infer<typeof HostedToolEvidence>;

export const ResponseEvidence = z.object({
  tool_calls: z.array(ToolCallEvidence),
  hosted_tool_events: z.array(HostedToolEvidence),
  /** Provider's stop reason before and after enforcement, when enforcement changed it. */
  finish_reason: z.string().nullable().optional(),
});
export type ResponseEvidence = z.infer<typeof ResponseEvidence>;

/**
 * The result of an earlier tool call, as the agent sent it back in this request (OpenAI `role:
 * tool` messages, Anthropic `tool_result` blocks after the last assistant turn).
 */
export const ToolResultEvidence = z.object({
  /** The call's id as the agent sent it (`tool_call_id`, `tool_use_id`). */
  tool_call_id: z.string(),
  /**
   * The call's AARM action id, computed as the response side did when it released the call;
   * absent when the conversation holds no assistant call with this id.
   */
  action_id: z.string().optional(),
  /** sha256 over the canonical result (JSON text parsed, redacted as arguments are). */
  result_hash: SchemaHash,
  /** Anthropic's `is_error`; OpenAI results carry no such flag (`false`). */
  is_error: z.boolean(),
  /**
   * Milliseconds from the gateway releasing the call to the agent to receiving this request;
   * null when the gateway cannot know (it did not release the call, or restarted since).
   */
  elapsed_ms: z.number().nonnegative().nullable(),
  /** Result paths redacted before hashing (as `redacted_arguments` for a call's arguments). */
  redacted_result: z.array(z.string()).optional(),
});
export type ToolResultEvidence = z.infer<typeof ToolResultEvidence>;

/** What the request's headers (`x-user-id`, `x-service-id`, `x-session-id`) said. */
export const ClaimedIdentity = z.object({
  human: z.string().optional(),
  service: z.string().optional(),
  session: z.string().optional(),
});
export type ClaimedIdentity = z.infer<typeof ClaimedIdentity>;

/**
 * The identity bound to the request. With `binding: verified` the human or service is the one
 * the agent's token proved; otherwise the names are the headers' claims. The session is always
 * the agent's claim.
 */
export const ReceiptIdentity = z.object({
  human: z.string().optional(),
  service: z.string().optional(),
  session: z.string().optional(),
  binding: IdentityBinding,
  /** The headers' claims, when they differ from the bound identity (a token's identity wins). */
  claims: ClaimedIdentity.optional(),
});
export type ReceiptIdentity = z.infer<typeof ReceiptIdentity>;

export const PolicyRevisionRef = z.object({
  name: z.string(),
  generation: z.number().int().nonnegative(),
  hash: SchemaHash,
});
export type PolicyRevisionRef = z.infer<typeof PolicyRevisionRef>;

const IsoTime = z.iso.datetime({ offset: true });

/**
 * What an MCP receipt (`surface: mcp`) adds: the server and JSON-RPC method. A `tools/call`'s
 * call is in `response.tool_calls[0]` (arguments hash, decision) and its result in
 * `tool_results[0]` (result hash, `is_error`, `elapsed_ms` = the upstream's time).
 */
export const McpEvidence = z.object({
  /** The McpServer's name. */
  server: z.string().min(1).max(253),
  /** `tools/call`, `tools/list`, `resources/read`, `prompts/get`, … */
  method: z.string().min(1).max(128),
  /** The gateway's `Mcp-Session-Id` of the agent's session. */
  session: z.string().max(128).optional(),
  /** The JSON-RPC error the agent was answered with, if any. */
  error: z.object({ code: z.number().int(), message: z.string().max(1024) }).optional(),
  /** Tools whose definition differs from the pinned one (`tools/list`). */
  drifted: z
    .array(
      z.object({
        tool: z.string().max(128),
        pinned: SchemaHash,
        seen: SchemaHash,
        action: z.enum(['warned', 'blocked']),
      }),
    )
    .optional(),
});
export type McpEvidence = z.infer<typeof McpEvidence>;

/**
 * One call the gateway executed itself in a hosted round (`tool_info`, a `HostedTool`): never
 * seen by the agent. Arguments and result by hash only (after the hosted tool's redaction).
 */
export const HostedCallEvidence = z.object({
  /** The provider's call id. */
  id: z.string(),
  /** The hosted tool's name as the model called it. */
  name: z.string(),
  /** `tool_info` (built in) or the `HostedTool` resource's name. */
  tool: z.string(),
  executed_by: z.literal('wardwright'),
  fidelity: z.literal('emulated'),
  arguments_hash: SchemaHash,
  /** Absent when nothing came back (timeout, unreachable). */
  result_hash: SchemaHash.optional(),
  is_error: z.boolean(),
  /** `ok`, or why the call failed; the model is told the failure as the tool's result. */
  outcome: z.enum([
    'ok',
    'error',
    'timeout',
    'unavailable',
    'too_large',
    'bad_response',
    'refused',
  ]),
  /** The endpoint's HTTP status, for HTTP hosted tools that answered. */
  status: z.number().int().min(100).max(599).optional(),
  duration_ms: z.number().nonnegative(),
  /** Result paths replaced by `[REDACTED]` before the model saw the result. */
  redacted_paths: z.array(z.string()).optional(),
});
export type HostedCallEvidence = z.infer<typeof HostedCallEvidence>;

/** One hosted round: the provider answered with hosted calls, the gateway ran them, called again. */
export const HostedRoundEvidence = z.object({
  /** 1 for the first hosted round (the agent's own request is round 0, not listed). */
  round: z.number().int().min(1),
  /** Milliseconds after the request was received that the round's calls started. */
  started_ms: z.number().nonnegative(),
  /** Executing the round's calls. */
  duration_ms: z.number().nonnegative(),
  /** The provider call that followed the round. */
  upstream_ms: z.number().nonnegative().optional(),
  calls: z.array(HostedCallEvidence),
  /** Token usage the provider reported for the call that followed the round, when it did. */
  usage: z
    .object({
      input_tokens: z.number().int().nonnegative().optional(),
      output_tokens: z.number().int().nonnegative().optional(),
    })
    .optional(),
});
export type HostedRoundEvidence = z.infer<typeof HostedRoundEvidence>;

/** The tool loop of a request: its hosted rounds, the budget that bounded it, and why it stopped early. */
export const HostedEvidence = z.object({
  rounds: z.array(HostedRoundEvidence),
  budget: z.object({
    max_calls: z.number().int().nonnegative(),
    max_rounds: z.number().int().nonnegative(),
    max_added_latency_ms: z.number().nonnegative(),
  }),
  /** Set when a budget stopped the loop: the agent got the model's last answer with a note. */
  exhausted: z.enum(['max_calls', 'max_rounds', 'max_added_latency']).optional(),
});
export type HostedEvidence = z.infer<typeof HostedEvidence>;

/** Everything in a receipt except the chain fields. Deterministic for the same inputs. */
export const ReceiptBody = z.object({
  schema: z.literal('toolgate.receipt.v2'),
  id: z.string().min(1).max(128),
  gateway: z.string().min(1),
  surface: Surface,
  model: z.string(),
  stream: z.boolean(),
  timestamps: z.object({
    received_at: IsoTime,
    completed_at: IsoTime,
  }),
  latency_ms: z.object({
    total: z.number().nonnegative(),
    mediation: z.number().nonnegative(),
    upstream: z.number().nonnegative(),
  }),
  identity: ReceiptIdentity,
  bundle: z.object({
    etag: z.string(),
    policies: z.array(PolicyRevisionRef),
  }),
  outcome: z.object({
    /** An HTTP status (stored in an `integer` column: anything else is refused on ingest). */
    status: z.number().int().min(100).max(599),
    error: z.string().optional(),
  }),
  wardwright_tool_mediation: ToolMediationBlock.optional(),
  tools: z.array(ToolRecord),
  response: ResponseEvidence.optional(),
  /**
   * Results of earlier calls the agent sent back in this request; absent when there are none
   * (older receipts, without the field, hash as they always did).
   */
  tool_results: z.array(ToolResultEvidence).optional(),
  /** MCP receipts only (`surface: mcp`). */
  mcp: McpEvidence.optional(),
  /** Requests that ran gateway-hosted tools (the tool loop); absent otherwise. */
  hosted: HostedEvidence.optional(),
  /**
   * Paths whose values were redacted before hashing (e.g. `tool_calls[0].arguments.token`), or
   * because they looked like a credential (`model`, `identity.session`).
   */
  redacted_paths: z.array(z.string()),
  /**
   * Paths whose values the gateway cut to fit a receipt (`response.tool_calls[0].name`), or lists
   * it cut short (`response.tool_calls`); absent when nothing was cut. See RECEIPT_LIMITS.
   */
  truncated_paths: z.array(z.string()).optional(),
});
export type ReceiptBody = z.infer<typeof ReceiptBody>;

/** A receipt as served and shown: the body plus its place in the gateway's hash chain. */
export const Receipt = ReceiptBody.extend({
  /** `hash` of the gateway's previous receipt; null for the first. */
  prev_hash: SchemaHash.nullable(),
  /** sha256 over the canonical JSON of the receipt's stored form without `hash` (see chain.ts). */
  hash: SchemaHash,
});
export type Receipt = z.infer<typeof Receipt>;

/**
 * What a receipt says about the request's tools: the per-tool records and, when mediation
 * changed something, the `wardwright_tool_mediation` block. The same tool list under the same
 * policy gives the same tool set, request after request — for a 50-tool request it is ~98% of the
 * receipt's bytes — so it is stored once, content-addressed (`toolSetHash`), and a stored receipt
 * references it by hash.
 */
export const ToolSet = z
  .object({
    wardwright_tool_mediation: ToolMediationBlock.optional(),
    tools: z.array(ToolRecord),
  })
  .strict();
export type ToolSet = z.infer<typeof ToolSet>;

/**
 * A receipt body in its stored form: the tool set replaced by its hash. This is what the chain
 * hashes, what the gateway spools and ships, and what the API stores.
 */
export const StoredReceiptBody = ReceiptBody.omit({
  wardwright_tool_mediation: true,
  tools: true,
}).extend({
  /** `toolSetHash` of the receipt's tool set. */
  tool_set_hash: SchemaHash,
});
export type StoredReceiptBody = z.infer<typeof StoredReceiptBody>;

/** A stored receipt with its chain fields: the unit of ingest and of chain verification. */
export const StoredReceipt = StoredReceiptBody.extend({
  prev_hash: SchemaHash.nullable(),
  hash: SchemaHash,
});
export type StoredReceipt = z.infer<typeof StoredReceipt>;

/**
 * A receipt of the first format: the tool set inline, and the hash over all of it. Still
 * accepted on ingest (spools written before the upgrade drain) and verified as it was hashed.
 */
export const ReceiptV1 = Receipt.extend({ schema: z.literal('toolgate.receipt.v1') });
export type ReceiptV1 = z.infer<typeof ReceiptV1>;
