import {
  CALL_TIME_ACTIONS,
  formatLabelSelector,
  type LabelSelector,
  parseLabelSelector,
  type RuleAction,
} from '@toolgate/core';

/** The fields the form view edits; everything else in the YAML is kept as it is. */
export interface RuleFields {
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
    mode: str(spec.mode) || 'patch',
    priority: spec.priority === undefined ? '0' : String(spec.priority),
    selector,
    unknownIdentities: str(spec.unknownIdentities) || 'unverified',
    rules: rules.map((value) => {
      const rule = obj(value);
      const limit = obj(rule.limit);
      return {
        id: str(rule.id),
        action: str(rule.action) || 'hide',
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
 * Writes the form fields back into the object, keeping whatever the form does not show (other
 * match selectors, augment parameters, replace declarations, metaTools, redact…).
 */
export function applyFormFields(object: Obj, fields: FormFields): Obj {
  const metadata: Obj = { ...obj(object.metadata), name: fields.name };
  const labels = parseLabels(fields.labels);
  if (Object.keys(labels).length > 0) metadata.labels = labels;
  else delete metadata.labels;
  const spec = obj(object.spec);
  const oldRules = Array.isArray(spec.rules) ? spec.rules : [];
  let selector: unknown = spec.selector;
  try {
    selector = parseLabelSelector(fields.selector);
  } catch {
    // An unparsable selector keeps the previous one; the field shows the parse error.
  }
  const priority = Number(fields.priority);
  const rules = fields.rules.map((rule, index) => {
    const previous = obj(oldRules[index]);
    const next: Obj = {
      ...previous,
      id: rule.id,
      action: rule.action,
      match: { ...obj(previous.match), name: rule.name },
    };
    if (!rule.name) delete (next.match as Obj).name;
    if (rule.description) next.description = rule.description;
    else delete next.description;
    if (rule.enabled) delete next.enabled;
    else next.enabled = false;
    delete next.alias;
    delete next.description_append;
    if (rule.action !== 'replace') delete next.tool;
    if (rule.action !== 'augment') delete next.parameters;
    if (rule.action === 'rename') next.alias = rule.alias;
    if (rule.action === 'augment' && rule.descriptionAppend)
      next.description_append = rule.descriptionAppend;
    if (rule.action === 'replace' && next.tool === undefined)
      next.tool = { name: rule.name || 'tool', description: '', parameters: { type: 'object' } };
    writeCallTimeFields(next, rule);
    return next;
  });
  return {
    ...object,
    apiVersion: object.apiVersion ?? 'toolgate.dev/v1',
    kind: object.kind ?? 'MediationPolicy',
    metadata,
    spec: {
      ...spec,
      selector,
      priority:
        Number.isFinite(priority) && fields.priority.trim() !== '' ? priority : fields.priority,
      mode: fields.mode,
      unknownIdentities: fields.unknownIdentities,
      rules,
    },
  };
}

/** `when`, and the fields only call-time actions (deny, require_approval, rate_limit) have. */
function writeCallTimeFields(next: Obj, rule: RuleFields): void {
  if (rule.when) next.when = rule.when;
  else delete next.when;
  if (isCallTime(rule.action) && rule.message) next.message = rule.message;
  else delete next.message;
  if (rule.action === 'require_approval' && rule.approvalTtl)
    next.approval = { ...obj(next.approval), ttl: rule.approvalTtl };
  else delete next.approval;
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
