import { RECEIPT_LIMITS } from './receipt-limits.ts';
import type {
  CallDecision,
  HostedToolEvidence,
  ResponseEvidence,
  ToolCallEvidence,
} from './receipt-schema.ts';
import { type StorableNotes, utf8ByteLength } from './storable-text.ts';

const TEXT = RECEIPT_LIMITS.evidenceText;

/**
 * The provider's side of a receipt, made storable: every text the provider chose (tool call
 * ids and names, hosted event names, sources, errors, argument keys) well-formed and bounded,
 * and the lists cut once their JSON passes {@link RECEIPT_LIMITS.responseEvidenceBytes}. The
 * provider has answered already, so nothing here can be refused: it is recorded as far as it
 * fits, and `notes` says what was cut. The common case (short, well-formed) returns the same
 * entries' values unchanged.
 */
export function storableEvidence(
  evidence: ResponseEvidence,
  notes: StorableNotes,
): ResponseEvidence {
  let budget = RECEIPT_LIMITS.responseEvidenceBytes;
  const fits = (entry: object): boolean => {
    const bytes = utf8ByteLength(JSON.stringify(entry));
    if (bytes > budget) return false;
    budget -= bytes;
    return true;
  };
  const tool_calls: ToolCallEvidence[] = [];
  for (const [index, call] of evidence.tool_calls.entries()) {
    const entry = storableCall(call, `response.tool_calls[${index}]`, notes);
    if (!fits(entry)) {
      notes.cut('response.tool_calls', true);
      break;
    }
    tool_calls.push(entry);
  }
  const hosted_tool_events: HostedToolEvidence[] = [];
  for (const [index, event] of evidence.hosted_tool_events.entries()) {
    const entry = storableHostedEvent(event, `response.hosted_tool_events[${index}]`, notes);
    if (!fits(entry)) {
      notes.cut('response.hosted_tool_events', true);
      break;
    }
    hosted_tool_events.push(entry);
  }
  const out: ResponseEvidence = { tool_calls, hosted_tool_events };
  if (evidence.finish_reason !== undefined) {
    out.finish_reason =
      evidence.finish_reason === null
        ? null
        : notes.text('response.finish_reason', evidence.finish_reason, TEXT);
  }
  return out;
}

function storableCall(call: ToolCallEvidence, at: string, notes: StorableNotes): ToolCallEvidence {
  const out: ToolCallEvidence = {
    id: notes.text(`${at}.id`, call.id, TEXT),
    name: notes.text(`${at}.name`, call.name, TEXT),
    arguments_hash: call.arguments_hash,
    action_id: call.action_id,
    policy_state: call.policy_state,
  };
  const providerName = notes.optional(`${at}.provider_name`, call.provider_name, TEXT);
  if (providerName !== undefined) out.provider_name = providerName;
  const resolved = notes.optional(`${at}.resolved_tool`, call.resolved_tool, TEXT);
  if (resolved !== undefined) out.resolved_tool = resolved;
  const capability = notes.optional(`${at}.capability`, call.capability, TEXT);
  if (capability !== undefined) out.capability = capability;
  const reason = notes.optional(`${at}.reason`, call.reason, TEXT);
  if (reason !== undefined) out.reason = reason;
  if (call.decision !== undefined)
    out.decision = storableDecision(call.decision, `${at}.decision`, notes);
  if (call.redacted_arguments !== undefined) {
    out.redacted_arguments = storableList(
      `${at}.redacted_arguments`,
      call.redacted_arguments,
      RECEIPT_LIMITS.redactedArgumentsPerCall,
      TEXT,
      notes,
    );
  }
  return out;
}

function storableDecision(decision: CallDecision, at: string, notes: StorableNotes): CallDecision {
  const out: CallDecision = { outcome: decision.outcome };
  for (const key of ['rule', 'policy', 'message', 'approval'] as const) {
    const limit = key === 'message' ? RECEIPT_LIMITS.decisionMessage : TEXT;
    const value = notes.optional(`${at}.${key}`, decision[key], limit);
    if (value !== undefined) out[key] = value;
  }
  if (decision.observed !== undefined) {
    const observed: NonNullable<CallDecision['observed']> = { outcome: decision.observed.outcome };
    for (const key of ['rule', 'policy'] as const) {
      const value = notes.optional(`${at}.observed.${key}`, decision.observed[key], TEXT);
      if (value !== undefined) observed[key] = value;
    }
    out.observed = observed;
  }
  return out;
}

function storableHostedEvent(
  event: HostedToolEvidence,
  at: string,
  notes: StorableNotes,
): HostedToolEvidence {
  const out: HostedToolEvidence = {
    capability: notes.text(`${at}.capability`, event.capability, TEXT),
    provider_type: notes.text(`${at}.provider_type`, event.provider_type, TEXT),
    name: notes.text(`${at}.name`, event.name, TEXT),
    fidelity: event.fidelity,
    policy_state: event.policy_state,
  };
  const id = notes.optional(`${at}.id`, event.id, TEXT);
  if (id !== undefined) out.id = id;
  if (event.input_hash !== undefined) out.input_hash = event.input_hash;
  if (event.sources !== undefined) {
    out.sources = storableList(
      `${at}.sources`,
      event.sources,
      RECEIPT_LIMITS.sourcesPerEvent,
      RECEIPT_LIMITS.sourceUrl,
      notes,
    );
  }
  const error = notes.optional(`${at}.error`, event.error, TEXT, true);
  if (error !== undefined) out.error = error;
  const container = notes.optional(`${at}.container`, event.container, TEXT);
  if (container !== undefined) out.container = container;
  const server = notes.optional(`${at}.server`, event.server, TEXT);
  if (server !== undefined) out.server = server;
  return out;
}

/** At most `max` entries of `list`, each storable text of at most `limit` units. */
export function storableList(
  at: string,
  list: ReadonlyArray<string>,
  max: number,
  limit: number,
  notes: StorableNotes,
): string[] {
  if (list.length > max) notes.cut(at);
  return list.slice(0, max).map((item, i) => notes.text(`${at}[${i}]`, item, limit));
}
