import { formatLabelSelector, type LabelSelector } from '@toolgate/core';

type Obj = Record<string, unknown>;
const obj = (value: unknown): Obj =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : {};
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A value in a sentence: strings bare, anything else as compact JSON. */
function shown(value: unknown): string {
  if (typeof value === 'string') return value === '' ? '""' : value;
  if (value === undefined) return '(none)';
  return JSON.stringify(value);
}

function selectorText(value: unknown): string {
  try {
    return formatLabelSelector(obj(value) as LabelSelector) || 'every gateway';
  } catch {
    return shown(value);
  }
}

/** What each spec field is called in a sentence. */
const SPEC_WORDS: Record<string, string> = {
  mode: 'mode',
  priority: 'priority',
  unknownIdentities: 'unknown identities',
  headerClaims: 'header claims',
  redact: 'redacted arguments',
  metaTools: 'meta tools',
};
const RULE_WORDS: Record<string, string> = {
  action: 'action',
  when: 'condition (when)',
  message: 'message to the agent',
  description: 'description',
  alias: 'provider alias',
  description_append: 'appended description',
  approval: 'approval',
  limit: 'limit',
  tool: 'replacement declaration',
  parameters: 'added parameters',
};
/** Short values are worth quoting ("from hide to deny"); long ones only "changed". */
const QUOTED_RULE_KEYS = new Set(['action', 'alias']);

const ruleName = (rule: Obj, index: number) =>
  typeof rule.id === 'string' && rule.id ? rule.id : `#${index + 1}`;

/**
 * The differences between two policy specs, in words an operator reads at a glance ("rule
 * hide-destructive added", "rule no-merge: action changed from hide to deny"), rules matched by
 * id. The review step before applying and the history both use it.
 */
export function describeChanges(fromSpec: unknown, toSpec: unknown): string[] {
  const from = withDefaults(fromSpec);
  const to = withDefaults(toSpec);
  const out: string[] = [];
  if (!same(from.selector ?? {}, to.selector ?? {})) {
    out.push(
      `gateway selector changed from ${selectorText(from.selector)} to ${selectorText(to.selector)}`,
    );
  }
  for (const key of new Set([...Object.keys(from), ...Object.keys(to)])) {
    if (key === 'rules' || key === 'selector' || same(from[key], to[key])) continue;
    const word = SPEC_WORDS[key] ?? key;
    if (from[key] === undefined) out.push(`${word} set to ${shown(to[key])}`);
    else if (to[key] === undefined) out.push(`${word} removed (was ${shown(from[key])})`);
    else if (key === 'redact' || key === 'metaTools') out.push(`${word} changed`);
    else out.push(`${word} changed from ${shown(from[key])} to ${shown(to[key])}`);
  }
  out.push(...describeRuleChanges(from.rules, to.rules));
  return out;
}

function describeRuleChanges(fromRules: unknown, toRules: unknown): string[] {
  const before = (Array.isArray(fromRules) ? fromRules : []).map(obj);
  const after = (Array.isArray(toRules) ? toRules : []).map(obj);
  const out: string[] = [];
  const names = (rules: Obj[]) => rules.map(ruleName);
  const beforeNames = names(before);
  const afterNames = names(after);
  after.forEach((rule, index) => {
    const name = ruleName(rule, index);
    const previousIndex = beforeNames.indexOf(name);
    if (previousIndex === -1) {
      out.push(`rule ${name} added`);
      return;
    }
    out.push(...describeRule(name, before[previousIndex] as Obj, rule));
  });
  before.forEach((rule, index) => {
    const name = ruleName(rule, index);
    if (!afterNames.includes(name)) out.push(`rule ${name} removed`);
  });
  const kept = afterNames.filter((n) => beforeNames.includes(n));
  const keptBefore = beforeNames.filter((n) => afterNames.includes(n));
  if (!same(kept, keptBefore)) out.push(`rules reordered: ${kept.join(', ')}`);
  return out;
}

function describeRule(name: string, from: Obj, to: Obj): string[] {
  const out: string[] = [];
  const at = `rule ${name}`;
  if ((from.enabled !== false) !== (to.enabled !== false))
    out.push(`${at} ${to.enabled === false ? 'disabled' : 'enabled'}`);
  const fromMatch = obj(from.match);
  const toMatch = obj(to.match);
  if (!same(fromMatch, toMatch)) {
    const onlyName = Object.keys({ ...fromMatch, ...toMatch }).every(
      (k) => k === 'name' || same(fromMatch[k], toMatch[k]),
    );
    out.push(
      onlyName
        ? `${at}: tool name changed from ${shown(fromMatch.name)} to ${shown(toMatch.name)}`
        : `${at}: match changed`,
    );
  }
  for (const key of new Set([...Object.keys(from), ...Object.keys(to)])) {
    if (key === 'id' || key === 'match' || key === 'enabled' || same(from[key], to[key])) continue;
    const word = RULE_WORDS[key] ?? `\`${key}\``;
    if (from[key] === undefined) {
      out.push(
        QUOTED_RULE_KEYS.has(key)
          ? `${at}: ${word} set to ${shown(to[key])}`
          : `${at}: ${word} added`,
      );
    } else if (to[key] === undefined) out.push(`${at}: ${word} removed`);
    else if (QUOTED_RULE_KEYS.has(key))
      out.push(`${at}: ${word} changed from ${shown(from[key])} to ${shown(to[key])}`);
    else out.push(`${at}: ${word} changed`);
  }
  return out;
}

/** The schema's defaults (MediationPolicySpec): what a spec that leaves them out stores. */
const SPEC_DEFAULTS: Obj = {
  selector: {},
  priority: 0,
  mode: 'patch',
  unknownIdentities: 'unverified',
};

/**
 * The spec with the schema's defaults filled in: a draft that leaves out `mode: patch` is no
 * change from a stored spec that has it.
 */
function withDefaults(spec: unknown): Obj {
  const out: Obj = { ...obj(spec) };
  for (const [key, value] of Object.entries(SPEC_DEFAULTS))
    if (out[key] === undefined) out[key] = value;
  return out;
}
