import type { Receipt, ToolCallEvidence } from '@toolgate/core';

export type ReceiptOutcome = 'ok' | 'error' | 'blocked';
/** The overview's classes: exclusive, in this order (see overviewClass). */
export type OverviewClass = 'blocked' | 'withheld' | 'error' | 'ok';

/**
 * The columns of a stored receipt that queries filter and list on. They are derived from the
 * receipt once, at ingest, so a query never has to open a receipt body; the body stays the
 * source of truth (the chain hashes it, not these columns).
 */
/** The receipt's `receipt_stats` row: what the console overview aggregates. */
export interface ReceiptStatsColumns {
  /** The overview's class: {@link overviewClass}. */
  outcomeClass: OverviewClass;
  /** Agent-facing names of the calls the provider made, in order. */
  calledTools: string[];
  /** One entry per blocked call: {@link callVerdictKey}. */
  blockedCalls: string[];
  /** One entry per call withheld for a human's approval (deferred): {@link callVerdictKey}. */
  withheldCalls: string[];
  /** `latency_ms.mediation` and `latency_ms.upstream`. */
  mediationMs: number;
  upstreamMs: number;
}

export interface ReceiptColumns extends ReceiptStatsColumns {
  id: string;
  gateway: string;
  receivedAt: string;
  surface: string;
  model: string;
  stream: boolean;
  status: number;
  outcome: ReceiptOutcome;
  identityHuman: string | null;
  identityService: string | null;
  identitySession: string | null;
  binding: string;
  /** Agent-facing names of the request's tools and of the calls the provider made. */
  tools: string[];
  /** Applied rules as `policy/rule`. */
  rules: string[];
  /** Names of the policy revisions in the bundle. */
  policies: string[];
  /** Capability contracts the receipt holds evidence of: {@link receiptCapabilities}. */
  capabilities: string[];
  prevHash: string | null;
  hash: string;
}

export function receiptColumns(receipt: Receipt): ReceiptColumns {
  const calls = receipt.response?.tool_calls ?? [];
  const outcome = receiptOutcome(receipt);
  const withheldCalls = calls
    .filter((call) => call.policy_state === 'deferred')
    .map(callVerdictKey);
  return {
    id: receipt.id,
    gateway: receipt.gateway,
    receivedAt: receipt.timestamps.received_at,
    surface: receipt.surface,
    model: receipt.model,
    stream: receipt.stream,
    status: receipt.outcome.status,
    outcome,
    identityHuman: receipt.identity.human ?? null,
    identityService: receipt.identity.service ?? null,
    identitySession: receipt.identity.session ?? null,
    binding: receipt.identity.binding,
    tools: unique([
      ...receipt.tools.map((tool) => tool.name),
      ...(receipt.response?.tool_calls.map((call) => call.name) ?? []),
    ]),
    rules: appliedRules(receipt),
    policies: unique(receipt.bundle.policies.map((policy) => policy.name)),
    capabilities: receiptCapabilities(receipt),
    calledTools: calls.map((call) => call.name),
    blockedCalls: calls.filter((call) => call.policy_state === 'blocked').map(callVerdictKey),
    withheldCalls,
    outcomeClass: overviewClass(outcome, withheldCalls.length > 0),
    mediationMs: receipt.latency_ms.mediation,
    upstreamMs: receipt.latency_ms.upstream,
    prevHash: receipt.prev_hash,
    hash: receipt.hash,
  };
}

/**
 * The capability contracts of the request's provider-hosted tools, then those of the response's
 * hosted tool events, each once: what the list's `contract` filter (the Fidelity page's link)
 * matches. The migration that added the column derives the same in SQL for receipts stored
 * before it: keep the two in step.
 */
export function receiptCapabilities(receipt: Receipt): string[] {
  const fromTools = receipt.tools.flatMap((tool) =>
    tool.capability === undefined ? [] : [tool.capability],
  );
  const fromEvents = (receipt.response?.hosted_tool_events ?? []).map((event) => event.capability);
  return unique([...fromTools, ...fromEvents]);
}

/**
 * `blocked` wins over the status code: an auditor looking for enforcement wants every request
 * where the policy stopped a call, whatever the provider answered.
 */
function receiptOutcome(receipt: Receipt): ReceiptOutcome {
  const response = receipt.response;
  const blocked =
    response?.tool_calls.some((call) => call.policy_state === 'blocked') ||
    response?.hosted_tool_events.some((event) => event.policy_state === 'blocked');
  if (blocked) return 'blocked';
  const { status } = receipt.outcome;
  return status >= 200 && status < 300 ? 'ok' : 'error';
}

/**
 * Applied (not merely observed) rules as `policy/rule`. A rule recorded without its policy
 * belongs to the bundle's only policy when there is just one; otherwise only its id is known.
 */
function appliedRules(receipt: Receipt): string[] {
  const rules = receipt.wardwright_tool_mediation?.applied_rules ?? [];
  const policies = receipt.bundle.policies;
  const soloPolicy = policies.length === 1 ? policies[0]?.name : undefined;
  return unique(
    rules.map((rule) => {
      const policy = rule.policy ?? soloPolicy;
      return policy === undefined ? rule.id : `${policy}/${rule.id}`;
    }),
  );
}

/**
 * `blocked` (the receipt's outcome), else `withheld` (a call waits for a human's approval), else
 * the outcome (`error`, `ok`): one class per request, for the overview's counts. The list's
 * `outcome=blocked` filter finds exactly the blocked ones.
 */
function overviewClass(outcome: ReceiptOutcome, withheld: boolean): OverviewClass {
  if (outcome === 'blocked') return 'blocked';
  return withheld ? 'withheld' : outcome;
}

/**
 * What stopped a call, as the overview groups it: the call-time rule that decided
 * (`policy/rule`, or the bare id when the policy is not recorded), else the reason (`hidden`,
 * `not_declared`, `rule_error:<id>`). The migration that added the columns derives the same in
 * SQL for receipts stored before them: keep the two in step.
 */
export function callVerdictKey(call: ToolCallEvidence): string {
  const decision = call.decision;
  if (decision?.rule !== undefined) {
    return decision.policy === undefined ? decision.rule : `${decision.policy}/${decision.rule}`;
  }
  return call.reason ?? (call.policy_state === 'deferred' ? 'deferred' : 'blocked');
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
