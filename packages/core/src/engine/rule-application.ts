import type { JsonObject } from '../json/json-value.ts';
import type { AppliedRule } from '../receipt/receipt-schema.ts';
import type { MediationMode } from '../resources/vocabulary.ts';
import type { CompiledRule } from './compile-bundle.ts';
import { type ConditionOutcomes, conditionApplies } from './condition-outcomes.ts';
import { compactParts } from './hosted-tools.ts';
import type { KnownDeclaration } from './mediation-memo.ts';
import { assignProviderNames } from './provider-names.ts';
import type { FunctionParts, SurfaceAdapter } from './request-tool.ts';
import type { MediatedTool } from './response-decisions.ts';
import { appendDescription, mergeSchema, replacementParts } from './tool-schema.ts';

/**
 * Rule application on the request side: the enforced rules in merged order over a request's
 * tools (each rule sees the previous rules' result), what observe-mode rules would have done,
 * and the provider names the survivors end up with. Used by mediate-request.ts.
 */

/** A tool while rules are applied to it. */
export interface Entry extends MediatedTool {
  kind: 'function' | 'provider';
  /** JSON text of the current declaration: the memo key for rewrites of it. */
  key: string;
  readonly originalHash: string;
  /** The declaration's parts before a `compact` rule advertised it compactly (tool_info's). */
  full?: FunctionParts;
}

export type AppliedRuleWithMode = AppliedRule & { mode: MediationMode };

/** Applies a (memoized) rewrite to an entry; false when it changes nothing. */
export type Rewriter = (entry: Entry, ruleKey: string, build: () => JsonObject) => boolean;

/**
 * What observe-mode rules would have done: all applicable rules are run as if enforced on a
 * shadow copy; the observe rules among them are reported only if the shadow outcome differs
 * from the real one (rules whose net effect is nothing are not worth an annotation).
 */
export function observeRules(
  shadow: Entry[],
  actual: ReadonlyArray<Entry>,
  applicable: ReadonlyArray<CompiledRule>,
  adapter: SurfaceAdapter,
  rewrite: Rewriter,
  outcomes: ConditionOutcomes,
  errors: Set<string>,
): AppliedRuleWithMode[] {
  const wouldApply = runRules(shadow, applicable, adapter, rewrite, outcomes, errors);
  finalizeProviderNames(shadow, adapter, rewrite);
  const differs = shadow.some((e, i) => {
    const real = actual[i] as Entry;
    return (
      e.visible !== real.visible || e.hash !== real.hash || e.providerName !== real.providerName
    );
  });
  return differs ? wouldApply.filter((r) => r.mode === 'observe') : [];
}

/** Applies rules in merged order; each sees the previous rules' result. */
export function runRules(
  entries: Entry[],
  rules: ReadonlyArray<CompiledRule>,
  adapter: SurfaceAdapter,
  rewrite: Rewriter,
  outcomes: ConditionOutcomes,
  errors: Set<string>,
): AppliedRuleWithMode[] {
  const applied: AppliedRuleWithMode[] = [];
  for (const compiled of rules) {
    const matched: string[] = [];
    const conditions = outcomes.get(compiled);
    for (const [index, entry] of entries.entries()) {
      if (!entry.visible || !compiled.matchesTool(entry.tool.name, entry.tool.declaredBy)) continue;
      const outcome = conditions?.[index];
      if (outcome === 'error') errors.add(compiled.rule.id);
      if (!conditionApplies(compiled, outcome)) continue;
      if (applyRule(entry, compiled, adapter, rewrite)) matched.push(entry.tool.name);
    }
    if (matched.length > 0) {
      const { rule } = compiled;
      applied.push({
        id: rule.id,
        action: rule.action,
        matched_tools: matched,
        policy: compiled.policy,
        mode: compiled.mode,
      });
    }
  }
  return applied;
}

/** Applies one rule to one matched tool; false when it would change nothing. */
function applyRule(
  entry: Entry,
  compiled: CompiledRule,
  adapter: SurfaceAdapter,
  rewrite: Rewriter,
): boolean {
  const { rule } = compiled;
  switch (rule.action) {
    case 'hide':
      entry.visible = false;
      entry.state = 'hidden';
      return true;
    case 'augment': {
      if (entry.kind !== 'function') return false;
      const augmented = rewrite(entry, compiled.key, () => {
        const parts = adapter.functionParts(entry.decl);
        if (rule.description_append !== undefined) {
          parts.description = appendDescription(parts.description, rule.description_append);
        }
        if (rule.parameters !== undefined) {
          parts.parameters = mergeSchema(parts.parameters, rule.parameters);
        }
        return adapter.writeFunction(parts, entry.decl);
      });
      if (!augmented) return false;
      if (entry.state === 'allowed') entry.state = 'wrapped';
      return true;
    }
    case 'replace': {
      const parts = replacementParts(rule.tool);
      if (!rewrite(entry, compiled.key, () => adapter.writeFunction(parts))) return false;
      entry.kind = 'function';
      entry.type = 'function';
      entry.inTools = true; // a replaced request-level tool moves into `tools`
      entry.providerName = parts.name;
      entry.state = 'replaced';
      return true;
    }
    case 'rename': {
      if (entry.kind !== 'function' || entry.providerName === rule.alias) return false;
      rewrite(entry, compiled.key, () => {
        const parts = adapter.functionParts(entry.decl);
        return adapter.writeFunction({ ...parts, name: rule.alias }, entry.decl);
      });
      entry.providerName = rule.alias;
      if (entry.state === 'allowed') entry.state = 'wrapped';
      return true;
    }
    case 'compact': {
      // Gateway tools are the gateway's own; a tool compacted once stays as it was compacted.
      if (entry.kind !== 'function' || entry.tool.declaredBy === 'wardwright') return false;
      if (entry.full !== undefined) return false;
      const full = adapter.functionParts(entry.decl);
      // Written without the base: a strict-mode flag would reject the permissive schema.
      const parts = compactParts(full, rule.description_max);
      if (!rewrite(entry, compiled.key, () => adapter.writeFunction(parts))) return false;
      entry.full = full;
      if (entry.state === 'allowed') entry.state = 'wrapped';
      return true;
    }
    // Host rules offer a tool per request (CompiledBundle.hostRules), not per tool; call-time
    // rules never reach the request side (CompiledBundle.callRules).
    case 'host':
    case 'deny':
    case 'require_approval':
    case 'rate_limit':
      return false;
  }
}

/** Swaps in a new declaration; false when it is canonically the same as the current one. */
export function setDeclaration(entry: Entry, next: KnownDeclaration | undefined): boolean {
  if (next === undefined || next.hash === entry.hash) return false;
  entry.decl = next.decl;
  entry.key = next.key;
  entry.hash = next.hash;
  return true;
}

/**
 * Deduplicates the `tools` array by provider name — a gateway-hosted tool wins a collision,
 * otherwise the first one stays — then gives provider-illegal names a deterministic alias.
 * Deduplicating first means two copies of one illegal name collapse instead of getting two
 * aliases.
 */
export function finalizeProviderNames(
  entries: Entry[],
  adapter: SurfaceAdapter,
  rewrite: Rewriter,
): void {
  const winners = new Map<string, Entry>();
  for (const entry of entries) {
    if (!entry.visible || !entry.inTools) continue;
    const current = winners.get(entry.providerName);
    if (current === undefined) winners.set(entry.providerName, entry);
    else if (entry.tool.declaredBy === 'wardwright' && current.tool.declaredBy !== 'wardwright') {
      current.visible = false;
      winners.set(entry.providerName, entry);
    } else entry.visible = false;
  }
  const survivors = entries.filter((e) => e.visible && e.inTools);
  if (adapter.aliasIllegalNames === false) return;
  const names = assignProviderNames(
    survivors.map((e) => e.providerName),
    adapter.nameRule,
  );
  survivors.forEach((entry, i) => {
    const alias = names[i] as string;
    if (alias === entry.providerName || entry.kind !== 'function') return;
    rewrite(entry, `alias\u0000${alias}`, () => {
      const parts = adapter.functionParts(entry.decl);
      return adapter.writeFunction({ ...parts, name: alias }, entry.decl);
    });
    entry.providerName = alias;
  });
}
