import type { MediationResult } from '../engine/mediate-request.ts';
import type { ToolResults } from '../engine/tool-results.ts';
import { RECEIPT_LIMITS } from './receipt-limits.ts';
import type {
  HostedEvidence,
  McpEvidence,
  ReceiptBody,
  ReceiptIdentity,
  ResponseEvidence,
} from './receipt-schema.ts';
import { storableEvidence } from './storable-evidence.ts';
import { StorableNotes } from './storable-text.ts';
import { storableToolResults } from './storable-tool-results.ts';

/** Everything a receipt records about one gateway request. Clock and ids come from the caller. */
export interface ReceiptInput {
  id: string;
  gateway: string;
  /** ISO timestamps, injected so the same request always gives the same receipt. */
  receivedAt: string;
  completedAt: string;
  latencyMs: { total: number; mediation: number; upstream: number };
  identity: ReceiptIdentity;
  bundleEtag: string;
  mediation: Pick<
    MediationResult,
    'model' | 'stream' | 'mediation' | 'tools' | 'policies' | 'response'
  >;
  outcome: { status: number; error?: string };
  response?: ResponseEvidence;
  /**
   * Results of earlier calls the agent sent back (`MediationResult.toolResults`), with
   * `elapsed_ms` filled by the caller where it knows when it released the call.
   */
  toolResults?: ToolResults;
  /** MCP receipts (`surface: mcp`): the server, the JSON-RPC method, the error, drift. */
  mcp?: McpEvidence;
  /** The tool loop's hosted rounds, when the gateway ran hosted tools for the request. */
  hosted?: HostedEvidence;
}

/**
 * The receipt body (SPEC §3): the `wardwright_tool_mediation` block only when mediation changed
 * something, response-side evidence, and the paths redacted before hashing. Always builds,
 * whatever the request and the provider sent: every value an agent or a provider chose is made
 * storable here (lone surrogates replaced, lengths and lists bounded by {@link RECEIPT_LIMITS},
 * what was cut listed in `truncated_paths`), and secret-shaped text in the model, the identity
 * claims, the error and hosted events is redacted (listed in `redacted_paths`). The tool set is
 * the exception: it comes from the request, whose tools the engine refuses past the limits
 * before the provider is called.
 */
export function buildReceiptBody(input: ReceiptInput): ReceiptBody {
  const notes = new StorableNotes();
  return receiptBodyOf(input, receiptHead(input, notes), notes);
}

/**
 * The parts of a receipt body known when the request is sent (see `ReceiptDraft`): the model and
 * identity as a receipt may hold them (their notes come first, in this order) and the bundle.
 */
export interface ReceiptHead {
  model: string;
  identity: ReceiptIdentity;
  bundle: ReceiptBody['bundle'];
}

/** @internal The request side of {@link buildReceiptBody}; `notes` collects what it changed. */
export function receiptHead(
  input: Pick<ReceiptInput, 'mediation' | 'identity' | 'bundleEtag'>,
  notes: StorableNotes,
): ReceiptHead {
  const { mediation } = input;
  return {
    model: notes.text('model', mediation.model, RECEIPT_LIMITS.model, true),
    identity: storableIdentity(input.identity, notes),
    bundle: { etag: input.bundleEtag, policies: [...mediation.policies] },
  };
}

/** The parts of a receipt body that depend on how the request ended (see `ReceiptDraft`). */
export interface ReceiptTail {
  outcome: ReceiptBody['outcome'];
  response: ResponseEvidence | undefined;
  tool_results: ReceiptBody['tool_results'];
  mcp: McpEvidence | undefined;
  hosted: ReceiptBody['hosted'];
  redacted_paths: string[];
  /** Undefined when nothing was cut. */
  truncated_paths: string[] | undefined;
}

/** @internal The end side of {@link buildReceiptBody}, after {@link receiptHead} with the same notes. */
export function receiptTail(
  input: Pick<ReceiptInput, 'outcome' | 'response' | 'toolResults' | 'mcp' | 'hosted'>,
  notes: StorableNotes,
): ReceiptTail {
  const error =
    input.outcome.error === undefined
      ? undefined
      : notes.text('outcome.error', input.outcome.error, RECEIPT_LIMITS.errorMessage, true);
  const response = input.response ? storableEvidence(input.response, notes) : undefined;
  const tool_results = storableToolResults(input.toolResults, notes);
  const mcp = input.mcp ? storableMcp(input.mcp, notes) : undefined;
  const redacted_paths = [...notes.redacted];
  response?.tool_calls.forEach((call, index) => {
    for (const path of call.redacted_arguments ?? []) {
      redacted_paths.push(`response.tool_calls[${index}].arguments.${path}`);
    }
  });
  tool_results?.forEach((result, index) => {
    for (const path of result.redacted_result ?? []) {
      const sep = path.startsWith('[') ? '' : '.';
      redacted_paths.push(`tool_results[${index}].result${sep}${path}`);
    }
  });
  if (redacted_paths.length > RECEIPT_LIMITS.redactedPaths) {
    redacted_paths.length = RECEIPT_LIMITS.redactedPaths;
    notes.cut('redacted_paths', true);
  }
  const status = input.outcome.status;
  return {
    outcome: error === undefined ? { status } : { status, error },
    response,
    tool_results,
    mcp,
    hosted: input.hosted,
    redacted_paths,
    truncated_paths: notes.truncated.length > 0 ? notes.truncated : undefined,
  };
}

function receiptBodyOf(input: ReceiptInput, head: ReceiptHead, notes: StorableNotes): ReceiptBody {
  const { mediation } = input;
  const tail = receiptTail(input, notes);
  return {
    schema: 'toolgate.receipt.v2',
    id: input.id,
    gateway: input.gateway,
    surface: mediation.response.surface,
    model: head.model,
    stream: mediation.stream,
    timestamps: { received_at: input.receivedAt, completed_at: input.completedAt },
    latency_ms: input.latencyMs,
    identity: head.identity,
    bundle: head.bundle,
    outcome: tail.outcome,
    ...(mediation.mediation ? { wardwright_tool_mediation: mediation.mediation } : {}),
    tools: mediation.tools,
    ...(tail.response ? { response: tail.response } : {}),
    ...(tail.tool_results ? { tool_results: tail.tool_results } : {}),
    ...(tail.mcp ? { mcp: tail.mcp } : {}),
    ...(tail.hosted ? { hosted: tail.hosted } : {}),
    redacted_paths: tail.redacted_paths,
    ...(tail.truncated_paths ? { truncated_paths: tail.truncated_paths } : {}),
  };
}

/**
 * The MCP block as a receipt may hold it: the method (the agent's) and the error message (the
 * upstream's, scrubbed) bounded; the session id and drifted tools are the gateway's own.
 */
function storableMcp(mcp: McpEvidence, notes: StorableNotes): McpEvidence {
  const out: McpEvidence = { ...mcp, method: notes.text('mcp.method', mcp.method, 128) };
  if (mcp.error) {
    const message = notes.text('mcp.error.message', mcp.error.message, 1024, true);
    out.error = { code: mcp.error.code, message };
  }
  if (mcp.drifted && mcp.drifted.length > RECEIPT_LIMITS.tools) {
    out.drifted = mcp.drifted.slice(0, RECEIPT_LIMITS.tools);
    notes.cut('mcp.drifted', true);
  }
  return out;
}

/** The identity claims (agent headers) as a receipt may hold them. */
function storableIdentity(identity: ReceiptIdentity, notes: StorableNotes): ReceiptIdentity {
  const limit = RECEIPT_LIMITS.identityClaim;
  const out: ReceiptIdentity = { ...identity };
  for (const key of ['human', 'service', 'session'] as const) {
    const value = identity[key];
    if (value !== undefined) out[key] = notes.text(`identity.${key}`, value, limit, true);
  }
  return out;
}
