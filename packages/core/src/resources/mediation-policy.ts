import { z } from 'zod';
import { parseDuration } from '../engine/duration.ts';
import { ConditionError, compileCondition, MAX_WHEN_LENGTH } from '../engine/rule-condition.ts';
import { isJsonObject, type JsonObject } from '../json/json-value.ts';
import {
  Condition,
  defineResource,
  defineResourceInput,
  LabelSelector,
  ResourceName,
} from './envelope.ts';
import { DeclaredBy, MediationMode, Surface } from './vocabulary.ts';

/**
 * A tool-name pattern: `/regex/flags`, a glob when it contains `*`, `?` or `[`, otherwise an
 * exact name. Kept as a string so a Wardwright `match.name: create_pull_request` works as is.
 */
export const NamePattern = z
  .string()
  .min(1, 'must not be empty')
  .max(256, 'must be at most 256 characters')
  .superRefine((value, ctx) => {
    const regex = /^\/(.+)\/([a-z]*)$/s.exec(value);
    if (!regex) return;
    try {
      new RegExp(regex[1] ?? '', regex[2]);
    } catch (error) {
      ctx.addIssue({
        code: 'custom',
        message: `invalid regular expression: ${(error as Error).message}`,
      });
    }
  });
export type NamePattern = z.infer<typeof NamePattern>;

const OneOrMany = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).min(1)]);

const MATCH_SHAPE = {
  /** Agent-facing tool name: exact, glob or `/regex/`. */
  name: NamePattern.optional(),
  declared_by: OneOrMany(DeclaredBy).optional(),
  /** Provider surface(s) the request goes to. */
  provider: OneOrMany(Surface).optional(),
  /** Model name pattern, e.g. `gpt-4o*`. */
  model: NamePattern.optional(),
  /** Agent identity selectors, matched against the identity bound to the request. */
  identity: z
    .object({
      human: NamePattern.optional(),
      service: NamePattern.optional(),
      session: NamePattern.optional(),
    })
    .strict()
    .optional(),
};

/** Which tools (and which requests) a rule applies to. Every given selector must match. */
export const ToolMatch = z
  .object(MATCH_SHAPE)
  .strict()
  .refine((m) => Object.values(m).some((v) => v !== undefined), {
    message: 'must name at least one selector (name, declared_by, provider, model or identity)',
  });
export type ToolMatch = z.infer<typeof ToolMatch>;

/**
 * Which requests a `host` rule offers its tool to: request-level selectors only (provider,
 * model, identity; `when` for the rest). `name` and `declared_by` select a request's own tools,
 * which a host rule does not act on: refused, so no one writes one believing it filters. Empty
 * (`{}`): every request.
 */
export const HostMatch = z
  .object(MATCH_SHAPE)
  .strict()
  .superRefine((m, ctx) => {
    for (const key of ['name', 'declared_by'] as const) {
      if (m[key] === undefined) continue;
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `a host rule offers its tool to the requests it matches: select them by provider, model, identity or when (${key} selects a request's own tools)`,
      });
    }
  });

/** Whether a policy trusts header identity claims (see `MediationPolicySpec.headerClaims`). */
export const HeaderClaims = z.enum(['untrusted', 'trusted']);
export type HeaderClaims = z.infer<typeof HeaderClaims>;

const JsonSchemaObject = z.custom<JsonObject>((v) => isJsonObject(v), 'must be a JSON object');

/**
 * A trusted tool declaration for `replace`: OpenAI form (`{type: function, function: {...}}`),
 * Anthropic form (`{name, description, input_schema}`) or bare (`{name, description,
 * parameters}`). The engine writes it in the request's own surface format.
 */
export const ToolDeclarationInput = z.union([
  z
    .object({
      type: z.literal('function').optional(),
      function: z
        .object({
          name: z.string().min(1, 'must not be empty'),
          description: z.string().optional(),
          parameters: JsonSchemaObject.optional(),
          strict: z.boolean().optional(),
        })
        .strict(),
    })
    .strict(),
  z
    .object({
      type: z.literal('function').optional(),
      name: z.string().min(1, 'must not be empty'),
      description: z.string().optional(),
      parameters: JsonSchemaObject.optional(),
      input_schema: JsonSchemaObject.optional(),
    })
    .strict(),
]);
export type ToolDeclarationInput = z.infer<typeof ToolDeclarationInput>;

const RuleId = z
  .string()
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be letters, digits, ".", "_" or "-"');

/**
 * A CEL condition that must be true for the rule to apply (docs/policies.md). Compiled here, so
 * an expression that does not compile is refused at apply and dry run with its position.
 */
const When = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_WHEN_LENGTH, `must be at most ${MAX_WHEN_LENGTH} characters`)
  .superRefine((value, ctx) => {
    try {
      compileCondition(value);
    } catch (error) {
      if (!(error instanceof ConditionError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message });
    }
  });

const RuleBase = {
  id: RuleId,
  match: ToolMatch,
  when: When.optional(),
  /** A disabled rule stays in the policy (and its history) but never applies. */
  enabled: z.boolean().optional(),
  description: z.string().max(1024).optional(),
};

export const HideRule = z.object({ ...RuleBase, action: z.literal('hide') }).strict();
export const AugmentRule = z
  .object({
    ...RuleBase,
    action: z.literal('augment'),
    /** Appended to the tool's description after a blank line. */
    description_append: z.string().min(1).max(4096).optional(),
    /**
     * JSON Schema fragment deep-merged into the tool's parameters: objects merge, `required`
     * arrays union, other values replace. Used to tighten (enums, additionalProperties: false).
     */
    parameters: JsonSchemaObject.optional(),
  })
  .strict()
  .refine((r) => r.description_append !== undefined || r.parameters !== undefined, {
    message: 'augment needs description_append or parameters',
    path: ['description_append'],
  });
export const ReplaceRule = z
  .object({ ...RuleBase, action: z.literal('replace'), tool: ToolDeclarationInput })
  .strict();
export const RenameRule = z
  .object({
    ...RuleBase,
    action: z.literal('rename'),
    /** The provider-facing name; calls come back under the agent's own name. */
    alias: z
      .string()
      .regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must match ^[a-zA-Z0-9_-]{1,64}$ (provider name rules)'),
  })
  .strict();

/**
 * Request side, `mode: execute` only: the matched tools are advertised in compact form (name,
 * description cut to `description_max` characters, parameter names only, a permissive schema)
 * and the gateway offers its hosted `tool_info`, which gives the model the full schema on
 * demand (docs/hosted-tools.md).
 */
export const CompactRule = z
  .object({
    ...RuleBase,
    action: z.literal('compact'),
    /** Longest description advertised (characters); absent: the description is kept whole. */
    description_max: z.number().int('must be an integer').min(0).max(4096).optional(),
  })
  .strict();
/**
 * Request side, `mode: execute` only: offers the `HostedTool` resource named `tool` to the
 * requests `match` (and `when`, evaluated with `tool` as the hosted tool) select. The gateway
 * runs its calls (the tool loop); the agent never sees them.
 */
export const HostRule = z
  .object({ ...RuleBase, match: HostMatch, action: z.literal('host'), tool: ResourceName })
  .strict();

/** A duration such as `30s`, `1m`, `1h`, `1h30m` between `min` and `max` milliseconds. */
export const DurationText = (min: number, max: number, bounds: string) =>
  z
    .string()
    .max(32, 'must be at most 32 characters')
    .superRefine((value, ctx) => {
      const ms = parseDuration(value);
      if (ms === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be a duration such as 30s, 1m, 1h or 1h30m',
        });
      } else if (ms < min || ms > max) {
        ctx.addIssue({ code: 'custom', message: `must be ${bounds}` });
      }
    });

/** What the agent is told when the rule withholds a call (a default names tool and decision). */
const AgentMessage = z
  .string()
  .min(1, 'must not be empty')
  .max(1024, 'must be at most 1024 characters');

/** Call-time: withholds a matching call (`when` may read `args`, the call's arguments). */
export const DenyRule = z
  .object({ ...RuleBase, action: z.literal('deny'), message: AgentMessage.optional() })
  .strict();
/**
 * Call-time: withholds a matching call until an operator approves its action (a
 * `ToolCallApproval` named after the call's `action_id`); the same action is then allowed until
 * the approval's `ttl` ends.
 */
export const RequireApprovalRule = z
  .object({
    ...RuleBase,
    action: z.literal('require_approval'),
    message: AgentMessage.optional(),
    approval: z
      .object({ ttl: DurationText(1_000, 30 * 86_400_000, 'between 1s and 30d') })
      .strict()
      .default({ ttl: '1h' }),
  })
  .strict();
/** Who shares a rate limit's token bucket. */
export const RateLimitKey = z.enum(['identity', 'session', 'gateway']);
export type RateLimitKey = z.infer<typeof RateLimitKey>;
/** Call-time: at most `calls` matching calls `per` period, per `by`, in each gateway. */
export const RateLimitRule = z
  .object({
    ...RuleBase,
    action: z.literal('rate_limit'),
    message: AgentMessage.optional(),
    limit: z
      .object({
        calls: z.number().int('must be an integer').min(1, 'must be >= 1').max(1_000_000),
        per: DurationText(1_000, 86_400_000, 'between 1s and 1d'),
        by: RateLimitKey.default('identity'),
      })
      .strict(),
  })
  .strict();

export const MediationRule = z.discriminatedUnion('action', [
  HideRule,
  AugmentRule,
  ReplaceRule,
  RenameRule,
  DenyRule,
  RequireApprovalRule,
  RateLimitRule,
  CompactRule,
  HostRule,
]);
export type MediationRule = z.infer<typeof MediationRule>;
export type RuleAction = MediationRule['action'];
export type CallTimeRule = z.infer<
  typeof DenyRule | typeof RequireApprovalRule | typeof RateLimitRule
>;

/**
 * The actions judged per tool call on the response side. The others rewrite what the model
 * sees, on the request side, before any call exists: their `when` cannot read `args`.
 */
export const CALL_TIME_ACTIONS: Readonly<Record<RuleAction, boolean>> = {
  hide: false,
  augment: false,
  replace: false,
  rename: false,
  deny: true,
  require_approval: true,
  rate_limit: true,
  compact: false,
  host: false,
};

/** The actions of gateway-hosted tools: only a policy of `mode: execute` may use them. */
export const EXECUTE_ACTIONS: ReadonlySet<RuleAction> = new Set(['compact', 'host']);

export function isCallTimeRule(rule: MediationRule): rule is CallTimeRule {
  return CALL_TIME_ACTIONS[rule.action];
}

/**
 * A wrapper tool that carries the real target in its arguments (e.g. `mcp_tool` with
 * `{server, tool, arguments}`). Calls are resolved to `server/tool` before any policy decision.
 */
export const MetaTool = z
  .object({
    name: z.string().min(1),
    serverField: z.string().min(1).default('server'),
    toolField: z.string().min(1).default('tool'),
    argumentsField: z.string().min(1).default('arguments'),
  })
  .strict();
export type MetaTool = z.infer<typeof MetaTool>;

/** Defaults of a policy's `hosted` budget (docs/hosted-tools.md). */
export const HOSTED_BUDGET_DEFAULTS = {
  maxCalls: 8,
  maxRounds: 4,
  maxAddedLatency: '30s',
  showHostedText: false,
  visibleToAgent: false,
} as const;

/**
 * What bounds the gateway's tool loop for one agent request: hosted calls in all, rounds
 * (provider calls after the agent's own), and the latency the loop may add. On exhaustion the
 * loop stops and the agent gets the model's last answer with a note.
 */
export const HostedBudget = z
  .object({
    maxCalls: z
      .number()
      .int('must be an integer')
      .min(1, 'must be >= 1')
      .max(64, 'must be <= 64')
      .default(HOSTED_BUDGET_DEFAULTS.maxCalls),
    maxRounds: z
      .number()
      .int('must be an integer')
      .min(1, 'must be >= 1')
      .max(16, 'must be <= 16')
      .default(HOSTED_BUDGET_DEFAULTS.maxRounds),
    maxAddedLatency: DurationText(100, 600_000, 'between 100ms and 10m').default(
      HOSTED_BUDGET_DEFAULTS.maxAddedLatency,
    ),
    /** Whether text the model wrote in hosted rounds is shown to the agent (before the answer). */
    showHostedText: z.boolean().default(HOSTED_BUDGET_DEFAULTS.showHostedText),
    /** Whether hosted tools count as visible to the agent (tool records, a response header). */
    visibleToAgent: z.boolean().default(HOSTED_BUDGET_DEFAULTS.visibleToAgent),
    /**
     * The name the gateway's `tool_info` is offered under: set it when agents declare a tool of
     * their own called `tool_info` (otherwise a 400 while tools are compacted).
     */
    toolInfoName: z
      .string()
      .regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must match ^[a-zA-Z0-9_-]{1,64}$ (provider name rules)')
      .optional(),
  })
  .strict();
export type HostedBudget = z.infer<typeof HostedBudget>;

export const MediationPolicySpec = z
  .object({
    /** Gateways this policy applies to, by gateway labels. Empty selects every gateway. */
    selector: LabelSelector.default({}),
    /** Higher applies first; ties break by policy name. */
    priority: z.number().int().min(-1_000_000).max(1_000_000).default(0),
    mode: MediationMode.default('patch'),
    rules: z.array(MediationRule).max(1000, 'must have at most 1000 rules'),
    metaTools: z.array(MetaTool).max(100).optional(),
    /**
     * What the gateway does with a request whose identity is not proven (by the agent's Toolgate
     * token, or a header claim the bundle trusts): mark it, or refuse it (403).
     */
    unknownIdentities: z.enum(['reject', 'unverified']).default('unverified'),
    /**
     * Whether `x-user-id` / `x-service-id` / `x-session-id` count as the agent's identity without
     * a token. `untrusted` (when absent): they are only claims — recorded, never matched by a
     * rule as proof. `trusted`: only for a trusted network in front of the gateway that sets
     * these headers itself; claims naming known agent identities then count for rule matching
     * and pass `unknownIdentities: reject`. A bundle trusts them only if every policy does.
     * Optional without a default, so adding it changed no stored policy's hash.
     */
    headerClaims: HeaderClaims.optional(),
    /**
     * Argument paths (dotted, e.g. `token` or `auth.password`) whose values are replaced by
     * `[REDACTED]` before tool-call arguments are hashed into a receipt.
     */
    redact: z.array(z.string().min(1).max(256)).max(100).optional(),
    /**
     * The tool loop's budget (`mode: execute`); absent: the defaults. Optional without a default,
     * so adding it changed no stored policy's hash.
     */
    hosted: HostedBudget.optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    const seen = new Map<string, number>();
    spec.rules.forEach((rule, index) => {
      requestSideArgs(rule, index, ctx);
      if (EXECUTE_ACTIONS.has(rule.action) && spec.mode !== 'execute') {
        ctx.addIssue({
          code: 'custom',
          path: ['rules', index, 'action'],
          message: `a ${rule.action} rule runs gateway-hosted tools: it needs the policy's mode: execute (mode is ${spec.mode})`,
        });
      }
      const first = seen.get(rule.id);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['rules', index, 'id'],
          message: `duplicate rule id "${rule.id}" (also rules[${first}])`,
        });
      } else seen.set(rule.id, index);
    });
  });
export type MediationPolicySpec = z.infer<typeof MediationPolicySpec>;

/** A request-side rule's `when` may not read `args`: there is no call yet. */
function requestSideArgs(
  rule: MediationRule,
  index: number,
  ctx: z.core.$RefinementCtx<unknown>,
): void {
  if (rule.when === undefined || CALL_TIME_ACTIONS[rule.action]) return;
  let argsAt: string | undefined;
  try {
    argsAt = compileCondition(rule.when).argsAt;
  } catch {
    return; // reported by the field's own schema
  }
  if (argsAt === undefined) return;
  ctx.addIssue({
    code: 'custom',
    path: ['rules', index, 'when'],
    message: `${argsAt}: 'args' is only defined for call-time actions (deny, require_approval, rate_limit); a ${rule.action} rule is judged on the request, before any call exists`,
  });
}
export type MediationPolicySpecInput = z.input<typeof MediationPolicySpec>;

export const MediationPolicyStatus = z.object({
  observedGeneration: z.number().int().optional(),
  conditions: z.array(Condition).default([]),
  /** Canonical hash of the current generation's spec. */
  revisionHash: z.string().optional(),
});
export type MediationPolicyStatus = z.infer<typeof MediationPolicyStatus>;

export const MediationPolicy = defineResource(
  'MediationPolicy',
  MediationPolicySpec,
  MediationPolicyStatus,
);
export type MediationPolicy = z.infer<typeof MediationPolicy>;

export const MediationPolicyInput = defineResourceInput('MediationPolicy', MediationPolicySpec);
export type MediationPolicyInput = z.infer<typeof MediationPolicyInput>;

/** The Wardwright-compatible bare form: `tool_mediation: {mode, rules}`. */
export const ToolMediationBlockInput = z
  .object({
    tool_mediation: z
      .object({ mode: MediationMode.default('patch'), rules: z.array(MediationRule) })
      .strict(),
  })
  .strict();
export type ToolMediationBlockInput = z.infer<typeof ToolMediationBlockInput>;
