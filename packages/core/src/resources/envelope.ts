import { z } from 'zod';
import { BadRequestError } from '../errors.ts';

/** The API group and version every Toolgate resource carries in `apiVersion`. */
export const API_VERSION = 'toolgate.dev/v1';

/**
 * An object name. Kubernetes DNS-subdomain names, except that `_` is allowed too: capability
 * contracts are named after their ids (`wardwright.web_search.v1`), and a name that differs from
 * the id it stands for would be one more thing to map and get wrong.
 */
export const ResourceName = z
  .string()
  // abort: an empty or overlong name gets one message, not a second one from the pattern.
  .min(1, { error: 'must not be empty', abort: true })
  .max(253, { error: 'must be at most 253 characters', abort: true })
  .regex(
    /^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$/,
    "must consist of lowercase alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  );
export type ResourceName = z.infer<typeof ResourceName>;

/** An RFC 3339 UTC timestamp such as `2026-01-01T00:00:00Z` (fractional seconds allowed). */
export const Timestamp = z.iso.datetime({
  error: 'must be an RFC 3339 UTC timestamp such as 2026-01-01T00:00:00Z',
});
export type Timestamp = z.infer<typeof Timestamp>;

// --- labels and annotations --------------------------------------------------------------------

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const QUALIFIED_NAME_RULE =
  "must be 63 characters or less, consist of alphanumeric characters, '-', '_' or '.', and start and end with an alphanumeric character";

/**
 * Why `key` is not a valid label (or annotation) key, or `undefined` when it is. Shared by the
 * zod schemas and the selector parser so both reject exactly the same keys with the same words.
 */
function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== undefined) {
    if (prefix.length === 0) return 'prefix part must not be empty';
    if (prefix.length > 253) return 'prefix part must be at most 253 characters';
    if (!DNS_SUBDOMAIN.test(prefix)) {
      return "prefix part must be a lowercase DNS subdomain (alphanumerics, '-' and '.')";
    }
  }
  if (name.length === 0) return 'name part must not be empty';
  if (name.length > 63 || !QUALIFIED_NAME.test(name)) return `name part ${QUALIFIED_NAME_RULE}`;
  return undefined;
}

function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 63 || !QUALIFIED_NAME.test(value)) {
    return `a label value must be empty or ${QUALIFIED_NAME_RULE}`;
  }
  return undefined;
}

/** A label key: optional `dns-subdomain/` prefix, then a name of at most 63 characters. */
export const LabelKey = z.string().superRefine((key, ctx) => {
  const problem = labelKeyProblem(key);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
export type LabelKey = z.infer<typeof LabelKey>;

/** A label value: empty, or up to 63 alphanumerics, `-`, `_`, `.` starting and ending alnum. */
export const LabelValue = z.string().superRefine((value, ctx) => {
  const problem = labelValueProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
export type LabelValue = z.infer<typeof LabelValue>;

/**
 * Identifying key/value pairs that selectors match (e.g. a policy's `spec.selector` against a
 * gateway's labels). Keys and values follow the Kubernetes rules so selectors written for
 * Kubernetes read the same here.
 */
export const Labels = z.record(z.string(), z.string()).superRefine((labels, ctx) => {
  for (const [key, value] of Object.entries(labels)) {
    const problem = labelKeyProblem(key) ?? labelValueProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', path: [key], message: problem });
  }
});
export type Labels = z.infer<typeof Labels>;

/** Kubernetes caps the annotations of one object at 256 KiB; so do we. */
const ANNOTATIONS_MAX_CHARS = 256 * 1024;

/**
 * Non-identifying metadata for tools and people (e.g. who last applied a policy from which git
 * commit). Never selected on, so values are free-form; keys follow the label-key rules.
 */
export const Annotations = z.record(z.string(), z.string()).superRefine((annotations, ctx) => {
  let size = 0;
  for (const [key, value] of Object.entries(annotations)) {
    size += key.length + value.length;
    const problem = labelKeyProblem(key);
    if (problem) ctx.addIssue({ code: 'custom', path: [key], message: problem });
  }
  if (size > ANNOTATIONS_MAX_CHARS) {
    ctx.addIssue({
      code: 'custom',
      message: `total size must be at most ${ANNOTATIONS_MAX_CHARS} characters (is ${size})`,
    });
  }
});
export type Annotations = z.infer<typeof Annotations>;

// --- object metadata ---------------------------------------------------------------------------

/** Server-assigned identity of one incarnation of an object; a re-created name gets a new uid. */
const Uid = z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters');

const Generation = z.number().int('must be an integer').min(1, 'must be at least 1');

/**
 * Opaque to clients: they only echo it back for optimistic concurrency, so the server is free to
 * change how it is derived.
 */
const ResourceVersion = z
  .string()
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters');

/** Metadata of a stored object, as the API returns it. Everything but labels is server-owned. */
export const ObjectMeta = z.object({
  name: ResourceName,
  /** Distinguishes a deleted-and-recreated object from its predecessor of the same name. */
  uid: Uid,
  labels: Labels.default({}),
  annotations: Annotations.default({}),
  /** Increments on every spec change (not on metadata or status changes). */
  generation: Generation,
  /** Changes on every write; a write carrying a stale one is rejected with 409 Conflict. */
  resourceVersion: ResourceVersion,
  creationTimestamp: Timestamp,
});
export type ObjectMeta = z.infer<typeof ObjectMeta>;

/**
 * Metadata as a client sends it on create or update. Server-owned fields are accepted (so the
 * output of `get` can be edited and applied as is) but ignored, except `resourceVersion`: when
 * present, the write only succeeds if it still matches the stored object.
 */
export const ObjectMetaInput = z.object({
  name: ResourceName,
  labels: Labels.optional(),
  annotations: Annotations.optional(),
  /** Ignored by the server. */
  uid: Uid.optional(),
  /** Ignored by the server. */
  generation: Generation.optional(),
  /** Ignored by the server. */
  creationTimestamp: Timestamp.optional(),
  /** Optimistic concurrency: the version this write was based on. */
  resourceVersion: ResourceVersion.optional(),
});
export type ObjectMetaInput = z.infer<typeof ObjectMetaInput>;

// --- conditions --------------------------------------------------------------------------------

const CamelCase = z
  .string()
  .min(1, { error: 'must not be empty', abort: true })
  .max(128, { error: 'must be at most 128 characters', abort: true })
  .regex(/^[A-Z][A-Za-z0-9]*$/, 'must be CamelCase (letters and digits, starting upper-case)');

export const ConditionStatus = z.enum(['True', 'False', 'Unknown']);
export type ConditionStatus = z.infer<typeof ConditionStatus>;

/**
 * One observation about an object (Kubernetes conditions, not a `phase`): several can hold at
 * once and each says since when and why, which a single state enum cannot.
 */
export const Condition = z.object({
  /** What is observed, e.g. `Synced` or `Ready`. */
  type: CamelCase,
  status: ConditionStatus,
  /** Machine-readable cause, e.g. `BundleRejected`; stable enough to alert on. */
  reason: CamelCase,
  /** Human-readable detail; may be empty. */
  message: z.string().max(32768, 'must be at most 32768 characters'),
  /** When `status` last changed, not when the condition was last written. */
  lastTransitionTime: Timestamp,
  /** The `metadata.generation` this condition was computed from; older means stale. */
  observedGeneration: z.number().int('must be an integer').min(0, 'must be >= 0').optional(),
});
export type Condition = z.infer<typeof Condition>;

/** Conditions of one object: at most one per `type`, as they are a map keyed by type. */
export const Conditions = z.array(Condition).superRefine((conditions, ctx) => {
  const seen = new Map<string, number>();
  conditions.forEach((condition, index) => {
    const first = seen.get(condition.type);
    if (first === undefined) seen.set(condition.type, index);
    else {
      ctx.addIssue({
        code: 'custom',
        path: [index, 'type'],
        message: `duplicate condition type "${condition.type}" (also [${first}])`,
      });
    }
  });
});
export type Conditions = z.infer<typeof Conditions>;

/** The condition of the given type, if present. */
export function findCondition(
  conditions: ReadonlyArray<Condition> | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((condition) => condition.type === type);
}

// --- label selectors ---------------------------------------------------------------------------

export const SelectorOperator = z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']);
export type SelectorOperator = z.infer<typeof SelectorOperator>;

/** One set-based requirement of a {@link LabelSelector}. */
export const LabelSelectorRequirement = z
  .object({
    key: LabelKey,
    operator: SelectorOperator,
    /** Required (non-empty) for `In`/`NotIn`; forbidden for `Exists`/`DoesNotExist`. */
    values: z.array(LabelValue).optional(),
  })
  .strict()
  .superRefine((requirement, ctx) => {
    const setBased = requirement.operator === 'In' || requirement.operator === 'NotIn';
    if (setBased && (requirement.values === undefined || requirement.values.length === 0)) {
      ctx.addIssue({
        code: 'custom',
        path: ['values'],
        message: `must be non-empty when operator is ${requirement.operator}`,
      });
    }
    if (!setBased && requirement.values !== undefined && requirement.values.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['values'],
        message: `must be empty when operator is ${requirement.operator}`,
      });
    }
  });
export type LabelSelectorRequirement = z.infer<typeof LabelSelectorRequirement>;

/**
 * Selects objects by their labels; all given requirements must hold (AND). An empty selector
 * selects everything, as in Kubernetes.
 */
export const LabelSelector = z
  .object({
    matchLabels: Labels.optional(),
    matchExpressions: z.array(LabelSelectorRequirement).optional(),
  })
  .strict();
export type LabelSelector = z.infer<typeof LabelSelector>;

/** Whether `labels` satisfy `selector`, with Kubernetes semantics. */
export function matchesLabelSelector(
  selector: LabelSelector,
  labels: Readonly<Record<string, string>>,
): boolean {
  // Own properties only: a label called `constructor` must not be found on the prototype.
  const get = (key: string): string | undefined =>
    Object.hasOwn(labels, key) ? labels[key] : undefined;
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (get(key) !== value) return false;
  }
  for (const requirement of selector.matchExpressions ?? []) {
    const value = get(requirement.key);
    const values = requirement.values ?? [];
    switch (requirement.operator) {
      case 'In':
        if (value === undefined || !values.includes(value)) return false;
        break;
      case 'NotIn':
        // A missing label is "not in" any set: `env notin (prod)` selects unlabelled objects.
        if (value !== undefined && values.includes(value)) return false;
        break;
      case 'Exists':
        if (value === undefined) return false;
        break;
      case 'DoesNotExist':
        if (value !== undefined) return false;
        break;
    }
  }
  return true;
}

type Token =
  | { kind: 'word'; text: string; at: number }
  | { kind: '=' | '==' | '!=' | '!' | '(' | ')' | ',' | 'end'; at: number };

function tokenize(text: string, fail: (message: string) => never): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text.charAt(i);
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '!' && text.charAt(i + 1) === '=') {
      tokens.push({ kind: '!=', at: i });
      i += 2;
    } else if (ch === '=' && text.charAt(i + 1) === '=') {
      tokens.push({ kind: '==', at: i });
      i += 2;
    } else if (ch === '=' || ch === '!' || ch === '(' || ch === ')' || ch === ',') {
      tokens.push({ kind: ch, at: i });
      i++;
    } else if (ch === '<' || ch === '>') {
      fail(`unsupported operator "${ch}" at position ${i}`);
    } else {
      const start = i;
      while (i < text.length && !/[\s!=(),<>]/.test(text.charAt(i))) i++;
      tokens.push({ kind: 'word', text: text.slice(start, i), at: start });
    }
  }
  tokens.push({ kind: 'end', at: text.length });
  return tokens;
}

/**
 * Parses the query-string form of a selector (`a=b,c!=d,e in (x,y),f notin (z),g,!h`), as
 * `kubectl -l` and `?labelSelector=` use it. `=`/`==` become `matchLabels` (or an `In`
 * requirement when the key repeats); everything else becomes `matchExpressions` in order.
 * @throws BadRequestError on bad syntax or invalid keys/values.
 */
export function parseLabelSelector(text: string): LabelSelector {
  const fail = (message: string): never => {
    throw new BadRequestError(`invalid label selector "${text}": ${message}`);
  };
  const tokens = tokenize(text, fail);
  let pos = 0;
  const peek = (): Token => tokens[pos] ?? { kind: 'end', at: text.length };
  const next = (): Token => {
    const token = peek();
    if (token.kind !== 'end') pos++;
    return token;
  };
  const describe = (token: Token): string =>
    token.kind === 'end'
      ? 'end of input'
      : `"${token.kind === 'word' ? token.text : token.kind}" at position ${token.at}`;

  const key = (token: Token): string => {
    if (token.kind !== 'word') return fail(`expected a label key, found ${describe(token)}`);
    const problem = labelKeyProblem(token.text);
    if (problem) return fail(`key "${token.text}": ${problem}`);
    return token.text;
  };
  const value = (token: Token): string => {
    if (token.kind !== 'word') return fail(`expected a label value, found ${describe(token)}`);
    const problem = labelValueProblem(token.text);
    if (problem) return fail(`value "${token.text}": ${problem}`);
    return token.text;
  };
  // An omitted value is the empty string (`a=`, `(x,)`), which is a valid label value.
  const optionalValue = (): string => (peek().kind === 'word' ? value(next()) : '');
  const valueSet = (): string[] => {
    const open = next();
    if (open.kind !== '(') return fail(`expected "(", found ${describe(open)}`);
    const values = [optionalValue()];
    while (peek().kind === ',') {
      next();
      values.push(optionalValue());
    }
    const close = next();
    if (close.kind !== ')') return fail(`expected "," or ")", found ${describe(close)}`);
    return values;
  };

  const matchLabels: Record<string, string> = {};
  const matchExpressions: LabelSelectorRequirement[] = [];
  if (peek().kind === 'end') return {};
  for (;;) {
    const first = next();
    if (first.kind === '!') {
      matchExpressions.push({ key: key(next()), operator: 'DoesNotExist' });
    } else {
      const k = key(first);
      const op = peek();
      if (op.kind === '=' || op.kind === '==') {
        next();
        const v = optionalValue();
        if (Object.hasOwn(matchLabels, k)) {
          matchExpressions.push({ key: k, operator: 'In', values: [v] });
        } else matchLabels[k] = v;
      } else if (op.kind === '!=') {
        next();
        matchExpressions.push({ key: k, operator: 'NotIn', values: [optionalValue()] });
      } else if (op.kind === 'word' && (op.text === 'in' || op.text === 'notin')) {
        next();
        matchExpressions.push({
          key: k,
          operator: op.text === 'in' ? 'In' : 'NotIn',
          values: valueSet(),
        });
      } else if (op.kind === ',' || op.kind === 'end') {
        matchExpressions.push({ key: k, operator: 'Exists' });
      } else {
        fail(`expected an operator (=, ==, !=, in, notin), "," or end, found ${describe(op)}`);
      }
    }
    const separator = next();
    if (separator.kind === 'end') break;
    if (separator.kind !== ',') fail(`expected "," or end, found ${describe(separator)}`);
  }
  const selector: LabelSelector = {};
  if (Object.keys(matchLabels).length > 0) selector.matchLabels = matchLabels;
  if (matchExpressions.length > 0) selector.matchExpressions = matchExpressions;
  return selector;
}

/**
 * Renders a selector in the query-string form {@link parseLabelSelector} reads, such that
 * parsing the result gives back an equal selector. The empty selector renders as `''`.
 */
export function formatLabelSelector(selector: LabelSelector): string {
  const parts = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => `${key}=${value}`);
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    switch (operator) {
      case 'In':
        parts.push(`${key} in (${values.join(',')})`);
        break;
      case 'NotIn':
        parts.push(
          values.length === 1 ? `${key}!=${values[0]}` : `${key} notin (${values.join(',')})`,
        );
        break;
      case 'Exists':
        parts.push(key);
        break;
      case 'DoesNotExist':
        parts.push(`!${key}`);
        break;
    }
  }
  return parts.join(',');
}

// --- resource envelopes ------------------------------------------------------------------------

/**
 * The stored form of a kind: `{apiVersion, kind, metadata, spec, status?}`. Status is optional
 * because it is written separately (by a controller or, for gateways, the gateway itself) and
 * does not exist until the first such write.
 */
export function defineResource<K extends string, Spec extends z.ZodType, Status extends z.ZodType>(
  kind: K,
  spec: Spec,
  status: Status,
) {
  return z.object({
    apiVersion: z.literal(API_VERSION),
    kind: z.literal(kind),
    metadata: ObjectMeta,
    spec,
    status: status.optional(),
  });
}

/**
 * The form a client sends on create/update. A `status` in the body is dropped, not rejected, so
 * the output of `get` can be applied back unchanged; status is never writable through the object.
 */
export function defineResourceInput<K extends string, Spec extends z.ZodType>(kind: K, spec: Spec) {
  return z.object({
    apiVersion: z.literal(API_VERSION),
    kind: z.literal(kind),
    metadata: ObjectMetaInput,
    spec,
  });
}
