import { hashCanonical } from '../hash/hash.ts';
import type { PolicyRevisionRef } from '../receipt/receipt-schema.ts';
import type { BundleHostedTool } from '../resources/hosted-tool.ts';
import {
  isCallTimeRule,
  type MediationPolicySpec,
  MediationPolicySpec as MediationPolicySpecSchema,
  type MediationRule,
  type MetaTool,
} from '../resources/mediation-policy.ts';
import type { ProviderProfileSpec } from '../resources/provider-profile.ts';
import type { DeclaredBy, MediationMode, Surface } from '../resources/vocabulary.ts';
import { SEED_PROVIDER_PROFILES } from '../seed/provider-profiles.ts';
import { parseOrThrow } from '../validate.ts';
import { type ResolvedHostedBudget, resolveHostedBudget } from './hosted-budget.ts';
import type { IdentityPolicy } from './identity-binding.ts';
import {
  identitySelectorMatches,
  RESTRICTING_ACTIONS,
  type RuleIdentity,
} from './identity-match.ts';
import { MediationMemo } from './mediation-memo.ts';
import { DEFAULT_META_TOOLS } from './meta-tools.ts';
import { compileNamePattern } from './name-pattern.ts';
import { DEFAULT_REDACTED_KEYS } from './redact.ts';
import { compileCondition, type HistoryCall, type RuleCondition } from './rule-condition.ts';

/** One policy revision as a bundle carries it. */
export interface BundlePolicy {
  name: string;
  generation: number;
  /** Canonical hash of the spec; computed when absent. */
  hash?: string;
  spec: unknown;
}

export interface BundleInput {
  /** The bundle's ETag (canonical hash); receipts record it. */
  etag?: string;
  policies: ReadonlyArray<BundlePolicy>;
  /** Provider profiles by surface; the seeded honest profiles when absent. */
  profiles?: ReadonlyArray<ProviderProfileSpec>;
  /** Bound of the schema-hash memo (0 disables it; benchmarks measure both). Default 4096. */
  memoSize?: number;
  /** The gateway's HostedTool resources, by name: what `host` rules offer. */
  hostedTools?: ReadonlyArray<BundleHostedTool>;
}

/** The request a rule is evaluated against, besides the tool itself. */
export interface RequestFacts {
  surface: Surface;
  model: string;
  identity: RuleIdentity;
  /** Earlier tool calls of the conversation: read only when a rule's `when:` reads `history`. */
  history?: ReadonlyArray<HistoryCall>;
}

export interface CompiledRule {
  /** Unique within the bundle: `policy` + rule id (memo key for the rule's rewrites). */
  readonly key: string;
  readonly policy: string;
  readonly mode: MediationMode;
  readonly rule: MediationRule;
  /** The rule's compiled `when:`, evaluated per tool (condition-outcomes.ts). */
  readonly condition?: RuleCondition;
  /** True when the rule's request-level selectors (provider, model, identity) accept it. */
  appliesTo(facts: RequestFacts): boolean;
  /** True when the rule's tool selectors (name, declared_by) accept the tool. */
  matchesTool(name: string, declaredBy: DeclaredBy): boolean;
  /**
   * {@link matchesTool} with the name compared without regard to letter case: for names the
   * model wrote (meta-tool targets, hosted calls), where `Delete_Repo` must not slip past a rule
   * written for `delete_repo`.
   */
  matchesToolIgnoringCase(name: string, declaredBy: DeclaredBy): boolean;
}

/** A bundle validated and prepared once, then used for every request. */
export interface CompiledBundle extends IdentityPolicy {
  readonly etag: string;
  /** Policy revisions in merged order (priority desc, then name). */
  readonly policies: ReadonlyArray<PolicyRevisionRef>;
  /** Every enabled request-side rule (hide, augment, replace, rename, compact) in merged order. */
  readonly rules: ReadonlyArray<CompiledRule>;
  /** Every enabled `host` rule in merged order (judged per request, not per tool). */
  readonly hostRules: ReadonlyArray<CompiledRule>;
  /** HostedTool resources by name. */
  readonly hostedTools: ReadonlyMap<string, BundleHostedTool>;
  /** The tool loop's budget: the strictest bound of every execute policy's `hosted` block. */
  readonly hostedBudget: ResolvedHostedBudget;
  /** Every enabled call-time rule (deny, require_approval, rate_limit) in merged order. */
  readonly callRules: ReadonlyArray<CompiledRule>;
  /** Whether a call-time rule's `when` reads `history` (then every request reads it). */
  readonly callRulesReadHistory: boolean;
  readonly hasObserveRules: boolean;
  readonly metaTools: ReadonlyArray<MetaTool>;
  readonly redact: ReadonlyArray<string>;
  /** Schema hashes of declarations seen with this bundle (memoized; results are the same). */
  readonly memo: MediationMemo;
  profileFor(surface: Surface): ProviderProfileSpec | undefined;
}

/** Canonical hash of a policy spec: what a revision is identified by. */
export function policySpecHash(spec: MediationPolicySpec): string {
  return hashCanonical(spec);
}

/**
 * Validates every policy (errors name `policies[i].spec.…`) and orders them: higher priority
 * first, then by name, so the merged order never depends on the order policies arrived in.
 */
export function compileBundle(input: BundleInput): CompiledBundle {
  const parsed = input.policies.map((policy, index) => ({
    name: policy.name,
    generation: policy.generation,
    spec: parseOrThrow(MediationPolicySpecSchema, policy.spec, 'MediationBundle', [
      'policies',
      index,
      'spec',
    ]),
    hash: policy.hash,
  }));
  parsed.sort(
    (a, b) => b.spec.priority - a.spec.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const rules: CompiledRule[] = [];
  const callRules: CompiledRule[] = [];
  const hostRules: CompiledRule[] = [];
  for (const policy of parsed) {
    for (const rule of policy.spec.rules) {
      if (rule.enabled === false) continue;
      const list = isCallTimeRule(rule) ? callRules : rule.action === 'host' ? hostRules : rules;
      list.push(compileRule(policy.name, policy.spec.mode, rule));
    }
  }
  const policies = parsed.map((p) => ({
    name: p.name,
    generation: p.generation,
    hash: p.hash ?? policySpecHash(p.spec),
  }));
  const profiles = new Map<Surface, ProviderProfileSpec>();
  for (const profile of input.profiles ?? SEED_PROVIDER_PROFILES.map((p) => p.spec)) {
    profiles.set(profile.surface, profile);
  }
  const metaTools = [...DEFAULT_META_TOOLS];
  for (const policy of parsed) {
    for (const meta of policy.spec.metaTools ?? []) {
      if (!metaTools.some((m) => m.name === meta.name)) metaTools.push(meta);
    }
  }
  return {
    etag: input.etag ?? hashCanonical(policies),
    policies,
    rules,
    callRules,
    hostRules,
    hostedTools: new Map((input.hostedTools ?? []).map((tool) => [tool.name, tool])),
    hostedBudget: resolveHostedBudget(parsed.map((p) => p.spec)),
    callRulesReadHistory: callRules.some((r) => r.condition?.readsHistory === true),
    hasObserveRules: rules.some((r) => r.mode === 'observe'),
    metaTools,
    redact: [...new Set([...DEFAULT_REDACTED_KEYS, ...parsed.flatMap((p) => p.spec.redact ?? [])])],
    // The strictest policy wins: one policy refusing unproven callers refuses them for the
    // bundle, and header claims are trusted only when every policy says so (a policy written
    // without thinking of it gets proof-only matching for its rules).
    unknownIdentities: parsed.some((p) => p.spec.unknownIdentities === 'reject')
      ? 'reject'
      : 'unverified',
    headerClaims:
      parsed.length > 0 && parsed.every((p) => p.spec.headerClaims === 'trusted')
        ? 'trusted'
        : 'untrusted',
    memo: new MediationMemo(input.memoSize),
    profileFor: (surface) => profiles.get(surface),
  };
}

function compileRule(policy: string, mode: MediationMode, rule: MediationRule): CompiledRule {
  const { match } = rule;
  const name = match.name === undefined ? undefined : compileNamePattern(match.name);
  const looseName =
    match.name === undefined ? undefined : compileNamePattern(match.name, { ignoreCase: true });
  const declaredBy = toSet(match.declared_by);
  const providers = toSet(match.provider);
  const model = match.model === undefined ? undefined : compileNamePattern(match.model);
  const identity = match.identity;
  const human = identity?.human === undefined ? undefined : compileNamePattern(identity.human);
  const service =
    identity?.service === undefined ? undefined : compileNamePattern(identity.service);
  const session =
    identity?.session === undefined ? undefined : compileNamePattern(identity.session);
  const restricting = RESTRICTING_ACTIONS[rule.action];
  return {
    key: `${policy}\u0000${rule.id}`,
    policy,
    mode,
    rule,
    ...(rule.when !== undefined ? { condition: compileCondition(rule.when) } : {}),
    appliesTo: (facts) =>
      (providers === undefined || providers.has(facts.surface)) &&
      (model === undefined || model(facts.model)) &&
      identitySelectorMatches(human, 'human', facts.identity, restricting) &&
      identitySelectorMatches(service, 'service', facts.identity, restricting) &&
      identitySelectorMatches(session, 'session', facts.identity, restricting),
    matchesTool: (toolName, toolDeclaredBy) =>
      (name === undefined || name(toolName)) &&
      (declaredBy === undefined || declaredBy.has(toolDeclaredBy)),
    matchesToolIgnoringCase: (toolName, toolDeclaredBy) =>
      (looseName === undefined || looseName(toolName)) &&
      (declaredBy === undefined || declaredBy.has(toolDeclaredBy)),
  };
}

function toSet<T>(value: T | T[] | undefined): Set<T> | undefined {
  if (value === undefined) return undefined;
  return new Set(Array.isArray(value) ? value : [value]);
}
