import type { JsonValue } from '../json/json-value.ts';
import type { CallDecision, CallOutcome } from '../receipt/receipt-schema.ts';
import type { MediationRule } from '../resources/mediation-policy.ts';
import type { DeclaredBy, PolicyState } from '../resources/vocabulary.ts';
import type { CallGate } from './call-gate.ts';
import type { CompiledRule, RequestFacts } from './compile-bundle.ts';
import { conditionVars } from './condition-outcomes.ts';
import { formatDuration, parseDuration } from './duration.ts';
import { bindConditionVars, type ConditionBindings } from './rule-condition.ts';
import type { RateBucket } from './token-buckets.ts';

/**
 * Call-time rules (deny, require_approval, rate_limit): judged per tool call on the response
 * side, after the call passed the request-side checks (declared, not hidden). Precedence, so
 * the outcome never depends on rule order across kinds: a deny wins; then approval (one
 * approval per action covers every approval rule); then rate limits (a call withheld for
 * another reason spends no token; a call two limits cover spends one of each, or none).
 * Within a kind, the first rule in merged order decides. A `when` that errors at run time
 * applies the rule (fail closed), recorded as `rule_error:<id>`.
 */

/** One tool call as the call-time rules see it. */
export interface CallUnderJudgement {
  /** The names the call goes by, each with who declared it (agent name; meta-tool target). */
  names: ReadonlyArray<{ name: string; declaredBy: DeclaredBy; ignoreCase: boolean }>;
  /** The tool's type, for `tool.type`. */
  type: string;
  /** Parsed arguments, unredacted: conditions read them; nothing here stores them. */
  args: JsonValue;
  /** The AARM action: what an approval is named after and what it covers. */
  actionId: string;
  /** The tool the action targets (a meta-tool call's `server/tool`). */
  actionTool: string;
  redactedArgs: JsonValue;
  argumentsHash: string;
}

export interface CallJudgement {
  /** Absent when no call-time rule covers the call. */
  decision?: CallDecision;
  policy_state: Extract<PolicyState, 'allowed' | 'blocked' | 'deferred'>;
  reason?: string;
}

type RuleOf<A extends MediationRule['action']> = Extract<MediationRule, { action: A }>;

const ALLOWED: CallJudgement = { policy_state: 'allowed' };

interface Applied {
  compiled: CompiledRule;
  errored: boolean;
}

/** Judges one call with the call-time rules that apply to the request. */
export function judgeCall(
  rules: ReadonlyArray<CompiledRule>,
  facts: RequestFacts,
  call: CallUnderJudgement,
  gate: CallGate | undefined,
): CallJudgement {
  if (rules.length === 0) return ALLOWED;
  const { covered, enforced, observed } = applicableRules(rules, facts, call);
  if (!covered) return ALLOWED;
  const judgement = decide(enforced, facts, call, gate);
  if (observed.length === 0 || judgement.decision === undefined) return judgement;
  // Observe-mode rules are judged as if enforced, without effects: no approval is requested
  // and rate limits count in buckets of their own. Only a call they would withhold is noted.
  const shadow = decide(observed, facts, call, gate && observingGate(gate));
  const wouldBe = shadow.decision;
  if (wouldBe === undefined || !isWithheld(wouldBe.outcome)) return judgement;
  return {
    ...judgement,
    decision: {
      ...judgement.decision,
      observed: {
        outcome: wouldBe.outcome,
        ...(wouldBe.rule !== undefined ? { rule: wouldBe.rule } : {}),
        ...(wouldBe.policy !== undefined ? { policy: wouldBe.policy } : {}),
      },
    },
  };
}

type WithheldOutcome = NonNullable<CallDecision['observed']>['outcome'];

function isWithheld(outcome: CallOutcome): outcome is WithheldOutcome {
  return STATE[outcome] !== 'allowed';
}

/** The rules whose selectors and conditions apply to the call, enforced and observed apart. */
function applicableRules(
  rules: ReadonlyArray<CompiledRule>,
  facts: RequestFacts,
  call: CallUnderJudgement,
): { covered: boolean; enforced: Applied[]; observed: Applied[] } {
  const enforced: Applied[] = [];
  const observed: Applied[] = [];
  let covered = false;
  // Variables bound once per name the call goes by (when a condition first needs them), shared
  // by every rule: CEL values made once.
  const bound: Array<ConditionBindings | undefined> = [];
  const bindingsOf = (index: number): ConditionBindings => {
    let known = bound[index];
    if (known === undefined) {
      const n = call.names[index] as CallUnderJudgement['names'][number];
      const vars = conditionVars(facts, {
        name: n.name,
        declared_by: n.declaredBy,
        type: call.type,
      });
      vars.args = call.args;
      known = bindConditionVars(vars);
      bound[index] = known;
    }
    return known;
  };
  for (const compiled of rules) {
    const matched = call.names.findIndex((n) =>
      n.ignoreCase
        ? compiled.matchesToolIgnoringCase(n.name, n.declaredBy)
        : compiled.matchesTool(n.name, n.declaredBy),
    );
    if (matched === -1) continue;
    covered = true;
    const into = compiled.mode === 'observe' ? observed : enforced;
    const outcome = compiled.condition?.evaluateBound(bindingsOf(matched));
    if (outcome === undefined || outcome === true) into.push({ compiled, errored: false });
    else if (outcome === 'error') into.push({ compiled, errored: true });
  }
  return { covered, enforced, observed };
}

/**
 * The gate as observe-mode rules use it: approvals are read, never requested; rate limits take
 * from buckets of their own, so observing neither spends nor is spent by enforced limits.
 */
function observingGate(gate: CallGate): CallGate {
  return {
    approval: (actionId) => gate.approval(actionId),
    requestApproval: () => {},
    take: (buckets) => gate.take(buckets.map((b) => ({ ...b, key: `observe\u0000${b.key}` }))),
  };
}

/** The precedence over the applicable rules of one mode. */
function decide(
  applied: ReadonlyArray<Applied>,
  facts: RequestFacts,
  call: CallUnderJudgement,
  gate: CallGate | undefined,
): CallJudgement {
  const first = (action: string) => applied.find((a) => a.compiled.rule.action === action);

  const deny = first('deny');
  if (deny) {
    const rule = deny.compiled.rule as RuleOf<'deny'>;
    return withheld(deny, 'deny', rule.message ?? explain.deny(call.actionTool, deny));
  }

  let approved: CallDecision | undefined;
  const approvalRule = first('require_approval');
  if (approvalRule) {
    const rule = approvalRule.compiled.rule as RuleOf<'require_approval'>;
    const known = gate?.approval(call.actionId);
    if (known?.state === 'approved') {
      approved = decisionOf(approvalRule, 'approved', undefined, call.actionId);
    } else if (known?.state === 'denied') {
      const message = explain.denied(call.actionTool, call.actionId, known);
      return withheld(approvalRule, 'deny', message, call.actionId);
    } else {
      gate?.requestApproval({
        actionId: call.actionId,
        tool: call.actionTool,
        arguments: call.redactedArgs,
        argumentsHash: call.argumentsHash,
        rule: { policy: approvalRule.compiled.policy, id: rule.id },
        ttlMs: parseDuration(rule.approval.ttl) ?? 3_600_000,
      });
      const message = rule.message ?? explain.approval(call.actionTool, call.actionId);
      return withheld(approvalRule, 'approval_required', message, call.actionId);
    }
  }

  const limited = applied.filter((a) => a.compiled.rule.action === 'rate_limit');
  if (limited.length > 0) {
    const failed = limited.find((a) => a.errored);
    if (failed) {
      const rule = failed.compiled.rule as RuleOf<'rate_limit'>;
      return withheld(
        failed,
        'rate_limited',
        rule.message ?? explain.limited(call.actionTool, rule),
      );
    }
    const buckets = limited.map((a) => bucketFor(a.compiled, facts));
    const taken = gate ? gate.take(buckets) : ({ ok: true } as const);
    if (!taken.ok) {
      const by = limited[taken.index] as Applied;
      const rule = by.compiled.rule as RuleOf<'rate_limit'>;
      const message =
        rule.message ?? explain.rateLimited(call.actionTool, rule, taken.retryAfterMs);
      return withheld(by, 'rate_limited', message);
    }
  }
  if (approved) return { decision: approved, policy_state: 'allowed' };
  return { decision: { outcome: 'allow' }, policy_state: 'allowed' };
}

const STATE: Record<CallOutcome, CallJudgement['policy_state']> = {
  allow: 'allowed',
  approved: 'allowed',
  deny: 'blocked',
  rate_limited: 'blocked',
  approval_required: 'deferred',
};

function withheld(
  applied: Applied,
  outcome: CallOutcome,
  message: string,
  approval?: string,
): CallJudgement {
  const { rule } = applied.compiled;
  // A rule whose condition failed is applied (fail closed) and says so, to the agent too.
  const said = applied.errored ? `${message} ${explain.errorNote(applied)}` : message;
  return {
    decision: decisionOf(applied, outcome, said, approval),
    policy_state: STATE[outcome],
    reason: applied.errored ? `rule_error:${rule.id}` : `rule:${rule.id}`,
  };
}

function decisionOf(
  applied: Applied,
  outcome: CallOutcome,
  message: string | undefined,
  approval: string | undefined,
): CallDecision {
  return {
    outcome,
    rule: applied.compiled.rule.id,
    policy: applied.compiled.policy,
    ...(message !== undefined ? { message } : {}),
    ...(approval !== undefined ? { approval } : {}),
  };
}

/**
 * Who shares a bucket. `identity`: the proven human or service; every caller whose identity is
 * not proven shares one bucket (a name an agent merely claims could otherwise be rotated to
 * escape the limit). `session`: the session the agent names (a budget per conversation, not a
 * security boundary: an agent can start new sessions). `gateway`: everyone.
 */
function bucketFor(compiled: CompiledRule, facts: RequestFacts): RateBucket {
  const rule = compiled.rule as RuleOf<'rate_limit'>;
  const { identity } = facts;
  const proven = identity.trusted ?? [];
  const who =
    proven.includes('human') && identity.human !== undefined
      ? `human:${identity.human}`
      : proven.includes('service') && identity.service !== undefined
        ? `service:${identity.service}`
        : 'unproven';
  const by =
    rule.limit.by === 'gateway'
      ? 'gateway'
      : rule.limit.by === 'session'
        ? `session:${identity.session ?? ''}|${who}`
        : who;
  return {
    key: `${compiled.key}\u0000${by}`,
    calls: rule.limit.calls,
    perMs: parseDuration(rule.limit.per) ?? 60_000,
  };
}

/** The default explanations: what happened, which rule, and what the agent can do about it. */
const explain = {
  deny: (tool: string, applied: Applied) =>
    `Toolgate withheld this call to ${tool}: policy rule "${applied.compiled.rule.id}" denies it. Do not retry it unchanged.`,
  approval: (tool: string, approval: string) =>
    `Toolgate withheld this call to ${tool}: it needs a human's approval. Approval ${approval} is pending; once an operator approves it, make the same call again with the same arguments.`,
  denied: (tool: string, approval: string, known: { decidedBy?: string; reason?: string }) =>
    `Toolgate withheld this call to ${tool}: approval ${approval} was denied${known.decidedBy ? ` by ${known.decidedBy}` : ''}${known.reason ? ` (${known.reason})` : ''}. Do not retry it.`,
  rateLimited: (tool: string, rule: RuleOf<'rate_limit'>, retryAfterMs: number) =>
    `Toolgate withheld this call to ${tool}: rate limit "${rule.id}" allows ${rule.limit.calls} call${rule.limit.calls === 1 ? '' : 's'} per ${rule.limit.per}${rule.limit.by === 'gateway' ? '' : ` per ${rule.limit.by}`}. Retry in ${formatDuration(retryAfterMs)}.`,
  limited: (tool: string, rule: RuleOf<'rate_limit'>) =>
    `Toolgate withheld this call to ${tool}: rate limit "${rule.id}" applies to it.`,
  errorNote: (applied: Applied) =>
    `(The condition of policy rule "${applied.compiled.rule.id}" could not be evaluated, so the rule applied.)`,
};
