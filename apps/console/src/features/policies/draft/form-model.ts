import {
  CALL_TIME_ACTIONS,
  formatLabelSelector,
  type LabelSelector,
  parseLabelSelector,
  type RuleAction,
} from '@toolgate/core';

/** The fields the form view edits; everything else in the YAML is kept as it is. */
export interface RuleFields {
  /** Where the rule is in the object's `rules` (-1: added in the form): its other fields. */
  source: number;
  id: string;
  action: string;
  name: string;
  description: string;
  enabled: boolean;
  alias: string;
  descriptionAppend: string;
  /** The CEL condition (`when:`); empty for none. */
  when: string;
  /** What the agent is told when a call-time rule withholds a call; empty for the default. */
  message: string;
  /** `approval.ttl` of a require_approval rule; empty for the default (1h). */
  approvalTtl: string;
  /** `limit` of a rate_limit rule, as typed (the API validates it). */
  limitCalls: string;
  limitPer: string;
  limitBy: string;
}

export interface FormFields {
  name: string;
  labels: string;
  mode: string;
  priority: string;
  selector: string;
  unknownIdentities: string;
  rules: RuleFields[];
}

type Obj = Record<string, unknown>;
const obj = (value: unknown): Obj =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : {};
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** `a=b,c=d` for a labels object. */
export function formatLabels(labels: unknown): string {
  return Object.entries(obj(labels))
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',');
}

export function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const part of text.split(',')) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf('=');
    if (eq === -1) labels[trimmed] = '';
    else labels[trimmed.slice(0, eq).trim()] = trimmed.slice(eq + 1).trim();
  }
  return labels;
}

export function toFormFields(object: Obj): FormFields {
  const metadata = obj(object.metadata);
  const spec = obj(object.spec);
  let selector = '';
  try {
    selector = formatLabelSelector(obj(spec.selector) as LabelSelector);
  } catch {
    selector = '';
  }
  const rules = Array.isArray(spec.rules) ? spec.rules : [];
  return {
    name: str(metadata.name),
    labels: formatLabels(metadata.labels),
    // Absent: the schema's default is what runs; anything else is shown as it is.
    mode: spec.mode === undefined ? 'patch' : str(spec.mode),
    priority: spec.priority === undefined ? '0' : String(spec.priority),
    selector,
    unknownIdentities:
      spec.unknownIdentities === undefined ? 'unverified' : str(spec.unknownIdentities),
    rules: rules.map((value, index) => {
      const rule = obj(value);
      const limit = obj(rule.limit);
      return {
        source: index,
        id: str(rule.id),
        // As the YAML has it, even when it is no action: the form shows what will be applied.
        action: str(rule.action),
        name: str(obj(rule.match).name),
        description: str(rule.description),
        enabled: rule.enabled !== false,
        alias: str(rule.alias),
        descriptionAppend: str(rule.description_append),
        when: str(rule.when),
        message: str(rule.message),
        approvalTtl: str(obj(rule.approval).ttl),
        limitCalls: limit.calls === undefined ? '' : String(limit.calls),
        limitPer: str(limit.per),
        limitBy: str(limit.by),
      };
    }),
  };
}

/**
 * Writes the form fields back into the object, changing only what the user changed: a field
 * left alone keeps its value as the YAML has it (even one the form cannot show, like a
 * non-string name), and whatever the form does not show (other match selectors, augment
 * parameters, replace declarations, metaTools, redact…) is kept. Defaults the YAML leaves out
 * stay out.
 */
export function applyFormFields(object: Obj, fields: FormFields): Obj {
  const before = toFormFields(object);
  const metadata: Obj = { ...obj(object.metadata) };
  if (fields.name !== before.name) metadata.name = fields.name;
  if (fields.labels !== before.labels) {
    const labels = parseLabels(fields.labels);
    if (Object.keys(labels).length > 0) metadata.labels = labels;
    else delete metadata.labels;
  }
  const spec: Obj = { ...obj(object.spec) };
  const oldRules = Array.isArray(spec.rules) ? spec.rules : [];
  if (fields.selector !== before.selector) {
    try {
      spec.selector = parseLabelSelector(fields.selector);
    } catch {
      // An unparsable selector keeps the previous one; the field shows the parse error.
    }
  }
  if (fields.priority !== before.priority) {
    const priority = Number(fields.priority);
    spec.priority =
      Number.isFinite(priority) && fields.priority.trim() !== '' ? priority : fields.priority;
  }
  if (fields.mode !== before.mode) spec.mode = fields.mode;
  if (fields.unknownIdentities !== before.unknownIdentities)
    spec.unknownIdentities = fields.unknownIdentities;
  const rulesChanged =
    fields.rules.length !== oldRules.length ||
    fields.rules.some(
      (rule, index) => rule.source !== index || !sameRule(rule, before.rules[index]),
    );
  if (rulesChanged) {
    spec.rules = fields.rules.map((rule) => {
      const known = rule.source >= 0 && rule.source < oldRules.length;
      const previous = known ? obj(oldRules[rule.source]) : {};
      const old = known ? before.rules[rule.source] : undefined;
      return old && sameRule(rule, old) ? oldRules[rule.source] : writeRule(previous, rule, old);
    });
  }
  return {
    ...object,
    apiVersion: object.apiVersion ?? 'toolgate.dev/v1',
    kind: object.kind ?? 'MediationPolicy',
    metadata,
    spec,
  };
}

const RULE_FIELD_NAMES = [
  'id',
  'action',
  'name',
  'description',
  'enabled',
  'alias',
  'descriptionAppend',
  'when',
  'message',
  'approvalTtl',
  'limitCalls',
  'limitPer',
  'limitBy',
] as const satisfies ReadonlyArray<keyof RuleFields>;

function sameRule(a: RuleFields, b: RuleFields | undefined): boolean {
  return b !== undefined && RULE_FIELD_NAMES.every((key) => a[key] === b[key]);
}

/** A rule with the fields that differ from `old` written (all of them for a new rule). */
function writeRule(previous: Obj, rule: RuleFields, old: RuleFields | undefined): Obj {
  const changed = (key: keyof RuleFields) => !old || rule[key] !== old[key];
  const next: Obj = { ...previous };
  if (changed('id')) next.id = rule.id;
  if (changed('action')) next.action = rule.action;
  if (changed('name')) {
    const match: Obj = { ...obj(previous.match) };
    if (rule.name) match.name = rule.name;
    else delete match.name;
    next.match = match;
  }
  if (changed('description')) {
    if (rule.description) next.description = rule.description;
    else delete next.description;
  }
  if (changed('enabled')) {
    if (rule.enabled) delete next.enabled;
    else next.enabled = false;
  }
  if (changed('action') || changed('alias')) {
    if (rule.action === 'rename') next.alias = rule.alias;
    else delete next.alias;
  }
  if (changed('action') || changed('descriptionAppend')) {
    if (rule.action === 'augment' && rule.descriptionAppend)
      next.description_append = rule.descriptionAppend;
    else delete next.description_append;
  }
  if (changed('action')) {
    // `tool` is a declaration for replace, a HostedTool's name for host (edited in the YAML).
    if (rule.action !== 'replace' && rule.action !== 'host') delete next.tool;
    if (rule.action !== 'augment') delete next.parameters;
    if (rule.action === 'replace' && next.tool === undefined)
      next.tool = { name: rule.name || 'tool', description: '', parameters: { type: 'object' } };
  }
  if (changed('when')) {
    if (rule.when) next.when = rule.when;
    else delete next.when;
  }
  writeCallTimeFields(next, rule, changed);
  return next;
}

/** The fields only call-time actions (deny, require_approval, rate_limit) have. */
function writeCallTimeFields(
  next: Obj,
  rule: RuleFields,
  changed: (key: keyof RuleFields) => boolean,
): void {
  if (changed('action') || changed('message')) {
    if (isCallTime(rule.action) && rule.message) next.message = rule.message;
    else delete next.message;
  }
  if (changed('action') || changed('approvalTtl')) {
    if (rule.action === 'require_approval' && rule.approvalTtl)
      next.approval = { ...obj(next.approval), ttl: rule.approvalTtl };
    else delete next.approval;
  }
  if (changed('action') || changed('limitCalls') || changed('limitPer') || changed('limitBy')) {
    if (rule.action === 'rate_limit') {
      const calls = rule.limitCalls.trim();
      next.limit = {
        ...obj(next.limit),
        // A number when it is one; otherwise the text, so the API names `limit.calls`.
        calls: /^\d+$/.test(calls) ? Number(calls) : calls,
        per: rule.limitPer,
        by: rule.limitBy || 'identity',
      };
    } else delete next.limit;
  }
}

/** Every rule action, in the schema's order: the form offers exactly what the API accepts. */
export const RULE_ACTIONS = Object.keys(CALL_TIME_ACTIONS) as RuleAction[];

/** Whether the action is judged per tool call (deny, require_approval, rate_limit). */
export function isCallTime(action: string): boolean {
  return Object.hasOwn(CALL_TIME_ACTIONS, action) && CALL_TIME_ACTIONS[action as RuleAction];
}

/** Defaults for a rule switched to `action`, so a new rate limit starts out valid. */
export function fieldsForAction(rule: RuleFields, action: string): RuleFields {
  if (action !== 'rate_limit') return { ...rule, action };
  return {
    ...rule,
    action,
    limitCalls: rule.limitCalls || '10',
    limitPer: rule.limitPer || '1m',
    limitBy: rule.limitBy || 'identity',
  };
}

/** Client-side check of the selector text only (the API validates everything else). */
export function selectorError(text: string): string | undefined {
  try {
    parseLabelSelector(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const SHOWN_SPEC_KEYS = new Set(['selector', 'priority', 'mode', 'unknownIdentities', 'rules']);
const SHOWN_RULE_KEYS = new Set(['id', 'action', 'match', 'description', 'enabled', 'when']);
/** The keys each action adds that the form has controls for. */
const SHOWN_BY_ACTION: Record<string, ReadonlyArray<string>> = {
  rename: ['alias'],
  augment: ['description_append'],
  deny: ['message'],
  require_approval: ['message', 'approval'],
  rate_limit: ['message', 'limit'],
};

/**
 * What the YAML holds that the form cannot show or edit, in words ("rule 2: `match.provider`"):
 * the form lists these, so it never looks like the whole policy when it is not. They are kept
 * as they are when the form edits the rest.
 */
export function partsOnlyInYaml(object: Obj): string[] {
  const parts: string[] = [];
  const spec = obj(object.spec);
  for (const key of Object.keys(spec)) if (!SHOWN_SPEC_KEYS.has(key)) parts.push(`\`${key}\``);
  const rules = Array.isArray(spec.rules) ? spec.rules : [];
  rules.forEach((value, index) => {
    const rule = obj(value);
    const where = `rule ${index + 1}${typeof rule.id === 'string' && rule.id ? ` (${rule.id})` : ''}`;
    const action = typeof rule.action === 'string' ? rule.action : '';
    const shown = new Set([...SHOWN_RULE_KEYS, ...(SHOWN_BY_ACTION[action] ?? [])]);
    const hidden = Object.keys(rule).filter((key) => !shown.has(key));
    for (const key of Object.keys(obj(rule.match))) if (key !== 'name') hidden.push(`match.${key}`);
    if (rule.match !== undefined && typeof rule.match !== 'object') hidden.push('match');
    if (obj(rule.match).name !== undefined && typeof obj(rule.match).name !== 'string')
      hidden.push('match.name');
    if (action === 'require_approval')
      for (const key of Object.keys(obj(rule.approval)))
        if (key !== 'ttl') hidden.push(`approval.${key}`);
    if (hidden.length > 0) parts.push(`${where}: ${hidden.map((k) => `\`${k}\``).join(', ')}`);
  });
  return parts;
}

/** Whether `value` is one of `options`; a select shows any other value as "not valid". */
export const isOneOf = (value: string, options: ReadonlyArray<string>) => options.includes(value);
