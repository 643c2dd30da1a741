import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.ts';
import { canonicalize } from '../json/canonical-json.ts';
import { deepFreeze } from '../json/deep-freeze.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/json-value.ts';
import { shuffledCopy } from '../json/shuffled-copy.ts';
import type { ToolRecord } from '../receipt/receipt-schema.ts';
import type { ToolDeclarationInput } from '../resources/mediation-policy.ts';
import type { Surface } from '../resources/vocabulary.ts';
import { type BundlePolicy, type CompiledBundle, compileBundle } from './compile-bundle.ts';
import { type MediationResult, mediateRequest } from './mediate-request.ts';

/**
 * Property tests of the request-side engine (SPEC §2) over random tool lists, tool_choices,
 * histories, gateway-hosted tools and 1–3 random policies, on both surfaces.
 */

const RUNS = Number(process.env.PROPERTY_RUNS ?? 0) || 200;
const PROVIDER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

// ---------------------------------------------------------------------------------------------
// Name pools: small, so that rules hit and names collide (also with automatic aliases).
// ---------------------------------------------------------------------------------------------

const LEGAL_NAMES = [
  'search',
  'create_pull_request',
  'github_create_issue',
  'mcp__jira__search',
  'web_search',
  'mcp_tool',
  'get-weather',
] as const;
/** 72 legal characters: too long for the providers. */
const LONG_NAME = 'fetch_the_complete_repository_history_and_summarize_every_commit_message';
const ILLEGAL_NAMES = [
  'github/create_issue', // sanitizes to github_create_issue, which is also in the pool
  'github/search',
  'search tool',
  'tool.v2',
  'créer_ticket',
  '検索', // sanitizes to "__" …
  '検査', // … and so does this one
  LONG_NAME,
] as const;
const TOOL_NAMES: readonly string[] = [...LEGAL_NAMES, ...ILLEGAL_NAMES];
/** Legal aliases, several colliding with pool names or with sanitized aliases. */
const ALIASES = [
  'search',
  'lookup',
  'gh_create_issue',
  'github_create_issue',
  'create_pull_request',
  'web_search',
  'search_tool',
  'tool_v2',
  '__',
] as const;
const REPLACEMENT_NAMES: readonly string[] = [
  ...TOOL_NAMES,
  'safe_search',
  'create_pull_request_draft',
  'github/safe_issue',
];
const HOSTED_NAMES: readonly string[] = [...TOOL_NAMES, 'wardwright_web_search'];
const PATTERNS: readonly string[] = [
  ...TOOL_NAMES,
  'delete_repo',
  'github/*',
  '*search*',
  'mcp__*',
  'create_?ull_request',
  '[cg]*',
  '/^create_/',
  '/search$/i',
  '/\\//',
  'github',
  'jira',
];
/** Patterns that reach request-level tools (`web_search_options`, MCP servers). */
const REQUEST_LEVEL_PATTERNS: readonly string[] = [
  'web_search',
  'github',
  'jira',
  'search',
  '*search*',
  '[gj]*',
];
/** Anthropic MCP connector servers (request-level); `search` collides with a tool name. */
const MCP_SERVER_NAMES = ['github', 'jira', 'search'] as const;
const META_TOOLS = new Set(['mcp_tool', 'call_mcp_tool', 'use_mcp_tool']);
const DECLARED_BY = ['agent', 'mcp', 'wardwright', 'provider'] as const;
const SURFACES: readonly Surface[] = ['openai-chat', 'anthropic-messages'];
const POLICY_NAMES = ['alpha', 'beta', 'gamma'] as const;
type Mode = 'observe' | 'patch';

// ---------------------------------------------------------------------------------------------
// JSON schema arbitraries
// ---------------------------------------------------------------------------------------------

const PROP_KEYS = ['q', 'repo', 'title', 'body', 'limit'] as const;
const jsonValueArb = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>;

const propertySchemaArb: fc.Arbitrary<JsonObject> = fc.record(
  {
    type: fc.constantFrom('string', 'integer', 'boolean', 'array', 'object'),
    description: fc.string({ maxLength: 12 }),
    enum: fc.uniqueArray(fc.string({ maxLength: 4 }), { minLength: 1, maxLength: 3 }),
  },
  { requiredKeys: ['type'] },
);

/** Random extra keywords (never `required`: its union is by identity, see mergeSchema). */
const extrasArb: fc.Arbitrary<JsonObject> = fc.dictionary(
  fc.string({ maxLength: 6 }).filter((k) => k !== 'required'),
  jsonValueArb,
  { maxKeys: 3 },
);

const structuredSchemaArb: fc.Arbitrary<JsonObject> = fc.record(
  {
    type: fc.constant('object'),
    properties: fc.dictionary(fc.constantFrom(...PROP_KEYS), propertySchemaArb, { maxKeys: 4 }),
    required: fc.uniqueArray(fc.constantFrom(...PROP_KEYS), { maxLength: 3 }),
    additionalProperties: fc.boolean(),
  },
  { requiredKeys: ['type'] },
);

/** A tool's parameter schema: mostly realistic, with random extra keys in random order. */
const schemaArb: fc.Arbitrary<JsonObject> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(structuredSchemaArb, extrasArb, fc.boolean())
      .map(([schema, extras, extrasFirst]) =>
        extrasFirst ? { ...extras, ...schema } : { ...schema, ...extras },
      ),
  },
  { weight: 1, arbitrary: extrasArb },
);

/** An augment rule's tightening fragment. */
const fragmentArb: fc.Arbitrary<JsonObject> = fc.oneof(
  fc.constant({ additionalProperties: false }),
  fc.record(
    {
      properties: fc.dictionary(fc.constantFrom(...PROP_KEYS), propertySchemaArb, {
        minKeys: 1,
        maxKeys: 2,
      }),
      required: fc.uniqueArray(fc.constantFrom(...PROP_KEYS), { maxLength: 2 }),
    },
    { requiredKeys: ['properties'] },
  ),
  extrasArb,
);

/** `arb` or undefined, with the given odds. */
const optional = <T>(
  arb: fc.Arbitrary<T>,
  weightAbsent = 1,
  weightPresent = 1,
): fc.Arbitrary<T | undefined> =>
  fc.oneof(
    { weight: weightAbsent, arbitrary: fc.constant(undefined) },
    { weight: weightPresent, arbitrary: arb },
  );

/** A trusted declaration in one of the three accepted forms (replace rules, hosted tools). */
function toolDeclarationArb(names: readonly string[]): fc.Arbitrary<ToolDeclarationInput> {
  return fc
    .tuple(
      fc.constantFrom(...names),
      optional(fc.string({ maxLength: 16 })),
      optional(schemaArb),
      fc.constantFrom('openai', 'bare', 'anthropic'),
    )
    .map(([name, description, parameters, form]): ToolDeclarationInput => {
      const inner = { name, ...(description !== undefined ? { description } : {}) };
      if (form === 'openai') {
        return { type: 'function', function: { ...inner, ...(parameters ? { parameters } : {}) } };
      }
      if (form === 'bare') return { ...inner, ...(parameters ? { parameters } : {}) };
      return { ...inner, ...(parameters ? { input_schema: parameters } : {}) };
    });
}

// ---------------------------------------------------------------------------------------------
// Policy arbitraries
// ---------------------------------------------------------------------------------------------

const declaredByArb = fc.oneof(
  fc.constantFrom(...DECLARED_BY),
  fc.uniqueArray(fc.constantFrom(...DECLARED_BY), { minLength: 1, maxLength: 2 }),
);

function matchArb(patterns: readonly string[]): fc.Arbitrary<JsonObject> {
  return fc
    .tuple(
      fc.constantFrom(...patterns),
      optional(declaredByArb, 3),
      optional(fc.constantFrom(...SURFACES), 4),
    )
    .map(([name, declaredBy, provider]) => ({
      name,
      ...(declaredBy !== undefined ? { declared_by: declaredBy } : {}),
      ...(provider !== undefined ? { provider } : {}),
    }));
}

const actionArb: fc.Arbitrary<JsonObject> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ action: 'hide' }) },
  {
    weight: 3,
    arbitrary: fc
      .oneof(
        fc.record({ description_append: fc.string({ minLength: 1, maxLength: 20 }) }),
        fc.record({ parameters: fragmentArb }),
        fc.record({
          description_append: fc.string({ minLength: 1, maxLength: 20 }),
          parameters: fragmentArb,
        }),
      )
      .map((fields): JsonObject => ({ action: 'augment', ...fields })),
  },
  {
    weight: 2,
    arbitrary: toolDeclarationArb(REPLACEMENT_NAMES).map(
      (tool): JsonObject => ({ action: 'replace', tool: tool as JsonObject }),
    ),
  },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(...ALIASES)
      .map((alias): JsonObject => ({ action: 'rename', alias })),
  },
);

/** A rule without its id (ids are given per policy, so they are unique there). */
function ruleArb(patterns: readonly string[] = PATTERNS): fc.Arbitrary<JsonObject> {
  return fc
    .tuple(matchArb(patterns), actionArb, optional(fc.constant(false), 9))
    .map(([match, action, enabled]) => ({
      match,
      ...action,
      ...(enabled !== undefined ? { enabled } : {}),
    }));
}

function policiesArb(
  modes: readonly Mode[],
  rules: fc.Arbitrary<JsonObject>,
): fc.Arbitrary<BundlePolicy[]> {
  return fc
    .uniqueArray(
      fc.record({
        name: fc.constantFrom(...POLICY_NAMES),
        priority: fc.integer({ min: -2, max: 2 }),
        mode: fc.constantFrom(...modes),
        rules: fc.array(rules, { maxLength: 5 }),
      }),
      { selector: (p) => p.name, minLength: 1, maxLength: 3 },
    )
    .map((policies) =>
      policies.map((p) => ({
        name: p.name,
        generation: 1,
        // Ids repeat across policies on purpose: receipts tell them apart by policy.
        spec: {
          priority: p.priority,
          mode: p.mode,
          rules: p.rules.map((rule, i) => ({ id: `r${i}`, ...rule })),
        },
      })),
    );
}

// ---------------------------------------------------------------------------------------------
// Request arbitraries
// ---------------------------------------------------------------------------------------------

interface ToolSpec {
  name: string;
  description?: string;
  params?: JsonObject;
  /** OpenAI: `function.strict`; Anthropic: a `cache_control` that must ride along. */
  extra?: boolean;
  /** OpenAI: leave `type` out (it defaults to "function"). */
  untyped?: boolean;
}

/** A name: an agent tool of the request (by index, when there is one) or any pool name. */
type NamePick = number | string;

type ChoiceSpec =
  | { kind: 'absent' }
  | { kind: 'mode'; mode: 'auto' | 'none' | 'required' }
  | { kind: 'named'; name: NamePick }
  | { kind: 'allowed'; mode: 'auto' | 'required'; names: NamePick[] };

const namePickArb: fc.Arbitrary<NamePick> = fc.oneof(
  { weight: 2, arbitrary: fc.nat(7) },
  { weight: 1, arbitrary: fc.constantFrom(...TOOL_NAMES) },
);

function toolSpecArb(names: readonly string[]): fc.Arbitrary<ToolSpec> {
  return fc.record(
    {
      name: fc.constantFrom(...names),
      description: fc.string({ maxLength: 16 }),
      params: schemaArb,
      extra: fc.boolean(),
      untyped: fc.boolean(),
    },
    { requiredKeys: ['name'] },
  );
}

const choiceArb: fc.Arbitrary<ChoiceSpec> = fc.oneof(
  fc.constant<ChoiceSpec>({ kind: 'absent' }),
  fc
    .constantFrom('auto' as const, 'none' as const, 'required' as const)
    .map((mode): ChoiceSpec => ({ kind: 'mode', mode })),
  namePickArb.map((name): ChoiceSpec => ({ kind: 'named', name })),
  fc
    .tuple(
      fc.constantFrom('auto' as const, 'required' as const),
      fc.array(namePickArb, { minLength: 1, maxLength: 3 }),
    )
    .map(([mode, names]): ChoiceSpec => ({ kind: 'allowed', mode, names })),
);

interface Scenario {
  surface: Surface;
  body: JsonObject;
  policies: BundlePolicy[];
  hostedTools: ToolDeclarationInput[];
}

interface ScenarioOptions {
  /** Tool names to draw from (default: the whole pool, legal and illegal). */
  names?: readonly string[];
  /** At most one tool per name (also between a function, the server tool and MCP servers). */
  unique?: boolean;
  /** Gateway-hosted tools: sometimes (default), always (true) or never (false). */
  hosted?: boolean;
  modes?: readonly Mode[];
  rules?: fc.Arbitrary<JsonObject>;
  /**
   * Request-level tools (OpenAI `web_search_options`, Anthropic `mcp_servers`): sometimes
   * (default), always (true) or never (false).
   */
  requestLevel?: boolean;
}

function renderTool(surface: Surface, t: ToolSpec): JsonObject {
  if (surface === 'openai-chat') {
    const fn: JsonObject = { name: t.name };
    if (t.description !== undefined) fn.description = t.description;
    if (t.params !== undefined) fn.parameters = t.params;
    if (t.extra) fn.strict = true;
    return t.untyped ? { function: fn } : { type: 'function', function: fn };
  }
  const tool: JsonObject = { name: t.name };
  if (t.description !== undefined) tool.description = t.description;
  tool.input_schema = t.params ?? { type: 'object', properties: {} };
  if (t.extra) tool.cache_control = { type: 'ephemeral' };
  return tool;
}

function renderChoice(
  surface: Surface,
  c: ChoiceSpec,
  tools: readonly ToolSpec[],
): JsonValue | undefined {
  const openai = surface === 'openai-chat';
  const pick = (p: NamePick): string =>
    typeof p === 'string'
      ? p
      : ((tools[p % Math.max(tools.length, 1)]?.name ??
          TOOL_NAMES[p % TOOL_NAMES.length]) as string);
  switch (c.kind) {
    case 'absent':
      return undefined;
    case 'mode':
      return openai ? c.mode : { type: c.mode === 'required' ? 'any' : c.mode };
    case 'named': {
      const name = pick(c.name);
      return openai ? { type: 'function', function: { name } } : { type: 'tool', name };
    }
    case 'allowed':
      return openai
        ? {
            type: 'allowed_tools',
            allowed_tools: {
              mode: c.mode,
              tools: c.names.map((p) => ({ type: 'function', function: { name: pick(p) } })),
            },
          }
        : { type: 'any', disable_parallel_tool_use: true };
  }
}

/** A conversation whose history already called `name` (history must follow renames). */
function renderMessages(surface: Surface, called: string | undefined): JsonValue[] {
  const user = { role: 'user', content: 'hi' };
  if (called === undefined) return [user];
  if (surface === 'openai-chat') {
    return [
      user,
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: called, arguments: '{"q":"x"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
    ];
  }
  return [
    user,
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'calling' },
        { type: 'tool_use', id: 'toolu_1', name: called, input: { q: 'x' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] },
  ];
}

function hostedArb(when: boolean | undefined): fc.Arbitrary<ToolDeclarationInput[]> {
  const some = fc.array(toolDeclarationArb(HOSTED_NAMES), { minLength: 1, maxLength: 2 });
  if (when === true) return some;
  const none = fc.constant<ToolDeclarationInput[]>([]);
  if (when === false) return none;
  return fc.oneof({ weight: 2, arbitrary: none }, { weight: 1, arbitrary: some });
}

function scenarioArb(options: ScenarioOptions = {}): fc.Arbitrary<Scenario> {
  const names = options.names ?? TOOL_NAMES;
  const tool = toolSpecArb(names);
  const tools = options.unique
    ? fc.uniqueArray(tool, { selector: (t) => t.name, maxLength: 5 })
    : fc.array(tool, { maxLength: 6 });
  return fc
    .record({
      surface: fc.constantFrom(...SURFACES),
      tools: optional(tools, 1, 6),
      serverTool: options.requestLevel === false ? fc.constant(false) : fc.boolean(),
      requestLevel:
        options.requestLevel === undefined ? fc.boolean() : fc.constant(options.requestLevel),
      mcpServers: fc.uniqueArray(fc.constantFrom(...MCP_SERVER_NAMES), {
        minLength: 1,
        maxLength: 2,
      }),
      choice: choiceArb,
      parallel: optional(fc.boolean(), 2),
      history: optional(fc.constantFrom(...names)),
      stream: fc.boolean(),
      policies: policiesArb(options.modes ?? ['observe', 'patch'], options.rules ?? ruleArb()),
      hosted: hostedArb(options.hosted),
    })
    .map((raw): Scenario => {
      const { surface } = raw;
      const openai = surface === 'openai-chat';
      const body: JsonObject = {
        model: openai ? 'gpt-4o' : 'claude-sonnet-4-5',
        messages: renderMessages(surface, raw.history),
      };
      if (!openai) body.max_tokens = 1024;
      if (raw.stream) body.stream = true;
      const declared: JsonObject[] | undefined = raw.tools?.map((t) => renderTool(surface, t));
      const serverTool =
        (raw.serverTool || (openai && raw.requestLevel)) &&
        !(options.unique && raw.tools?.some((t) => t.name === 'web_search'));
      if (!openai && serverTool) {
        const server = { type: 'web_search_20250305', name: 'web_search', max_uses: 3 };
        body.tools = [...(declared ?? []), server];
      } else if (declared !== undefined) body.tools = declared;
      if (openai && serverTool) body.web_search_options = { search_context_size: 'low' };
      const servers = raw.mcpServers.filter(
        (name) => !(options.unique && raw.tools?.some((t) => t.name === name)),
      );
      if (!openai && raw.requestLevel && servers.length > 0) {
        body.mcp_servers = servers.map((name) => ({
          type: 'url',
          url: `https://mcp.example.com/${name}`,
          name,
        }));
      }
      const choice = renderChoice(surface, raw.choice, raw.tools ?? []);
      if (choice !== undefined) body.tool_choice = choice;
      if (openai && raw.parallel !== undefined) body.parallel_tool_calls = raw.parallel;
      return { surface, body, policies: raw.policies, hostedTools: raw.hosted };
    });
}

/** Requests that always carry request-level tools, with rules aimed at them. */
function requestLevelScenarioArb(): fc.Arbitrary<Scenario> {
  return scenarioArb({ requestLevel: true, hosted: false, rules: ruleArb(REQUEST_LEVEL_PATTERNS) });
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function bundleOf(s: Scenario): CompiledBundle {
  return compileBundle({ policies: s.policies });
}

function mediate(s: Scenario, bundle: CompiledBundle = bundleOf(s)): MediationResult {
  return mediateRequest(bundle, { surface: s.surface, body: s.body, hostedTools: s.hostedTools });
}

function declarations(body: JsonObject): JsonObject[] {
  return Array.isArray(body.tools) ? body.tools.filter(isJsonObject) : [];
}

/** The name the provider sees for one entry of `body.tools`. */
function declName(surface: Surface, d: JsonObject): string {
  if (surface === 'openai-chat') {
    return isJsonObject(d.function) && typeof d.function.name === 'string' ? d.function.name : '';
  }
  return typeof d.name === 'string' ? d.name : '';
}

function isFunctionDecl(surface: Surface, d: JsonObject): boolean {
  if (surface === 'openai-chat') return (d.type ?? 'function') === 'function';
  return d.type === undefined || d.type === null || d.type === 'custom';
}

/** Records of tools that live in `tools` (not request-level ones such as web_search_options). */
function inToolsArray(t: ToolRecord): boolean {
  return t.type !== 'web_search_options' && t.type !== 'mcp_server';
}

const isExactPattern = (p: string) => !/[*?[]/.test(p) && !/^\/.+\/[a-z]*$/s.test(p);

/** Every reason the request's tool_choice / parallel_tool_calls are inconsistent with its tools. */
function toolChoiceProblems(surface: Surface, body: JsonObject): string[] {
  const problems: string[] = [];
  const names = new Set(declarations(body).map((d) => declName(surface, d)));
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  const choice = body.tool_choice;
  if (choice !== undefined && choice !== null) {
    if (!hasTools) problems.push('tool_choice without tools');
    if (isJsonObject(choice) && surface === 'openai-chat') {
      if (choice.type === 'function' && isJsonObject(choice.function)) {
        const name = String(choice.function.name);
        if (!names.has(name)) problems.push(`tool_choice names absent ${name}`);
      }
      if (choice.type === 'allowed_tools') {
        const allowed = isJsonObject(choice.allowed_tools) ? choice.allowed_tools.tools : undefined;
        const refs = Array.isArray(allowed) ? allowed : [];
        if (refs.length === 0) problems.push('allowed_tools is empty');
        for (const ref of refs) {
          const name = isJsonObject(ref) && isJsonObject(ref.function) ? ref.function.name : ref;
          if (!names.has(String(name))) problems.push(`allowed_tools lists absent ${name}`);
        }
      }
    }
    if (isJsonObject(choice) && surface === 'anthropic-messages' && choice.type === 'tool') {
      const name = String(choice.name);
      if (!names.has(name)) problems.push(`tool_choice names absent ${name}`);
    }
  }
  if (surface === 'openai-chat' && body.parallel_tool_calls !== undefined && !hasTools) {
    problems.push('parallel_tool_calls without tools');
  }
  return problems;
}

/** Names of the tool calls in the conversation history, in order. */
function historyCallNames(surface: Surface, body: JsonObject): string[] {
  const out: string[] = [];
  for (const m of Array.isArray(body.messages) ? body.messages : []) {
    if (!isJsonObject(m)) continue;
    if (surface === 'openai-chat' && Array.isArray(m.tool_calls)) {
      for (const c of m.tool_calls) {
        if (isJsonObject(c) && isJsonObject(c.function)) out.push(String(c.function.name));
      }
    }
    if (surface === 'anthropic-messages' && Array.isArray(m.content)) {
      for (const b of m.content) {
        if (isJsonObject(b) && b.type === 'tool_use') out.push(String(b.name));
      }
    }
  }
  return out;
}

/** Sets `value` at the deepest reachable point of `path` in a copy of `body`. */
function corrupt(
  body: JsonObject,
  path: ReadonlyArray<string | number>,
  value: JsonValue,
): JsonValue {
  const root = structuredClone(body);
  const isContainer = (v: JsonValue | undefined) => typeof v === 'object' && v !== null;
  let node: JsonValue = root;
  for (const [i, segment] of path.entries()) {
    const last = i === path.length - 1;
    if (Array.isArray(node)) {
      if (node.length === 0) {
        node.push(value);
        break;
      }
      const index = typeof segment === 'number' ? segment % node.length : 0;
      const child: JsonValue | undefined = node[index];
      if (last || !isContainer(child)) {
        node[index] = value;
        break;
      }
      node = child as JsonValue;
    } else if (isJsonObject(node)) {
      const key = String(segment);
      const child: JsonValue | undefined = node[key];
      if (last || !isContainer(child)) {
        node[key] = value;
        break;
      }
      node = child as JsonValue;
    }
  }
  return root;
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

describe('mediateRequest properties', () => {
  it('1. throws nothing but ValidationError, and nothing at all for well-formed requests', () => {
    fc.assert(
      fc.property(scenarioArb(), fc.string({ unit: 'binary', maxLength: 12 }), (s, rawArgs) => {
        const result = mediate(s);
        // The response side built from it never throws either, whatever the arguments.
        for (const d of declarations(result.body)) {
          result.response.decideCall('call_1', declName(s.surface, d), rawArgs);
        }
        result.response.decideCall('call_2', 'never_declared', rawArgs);
      }),
      { numRuns: RUNS },
    );

    const segment = fc.oneof(
      fc.constantFrom(
        'tools',
        'tool_choice',
        'function',
        'name',
        'parameters',
        'input_schema',
        'type',
        'messages',
        'model',
        'mcp_servers',
        'web_search_options',
        'allowed_tools',
        'content',
        'tool_calls',
        'custom',
        'description',
      ),
      fc.nat(3),
    );
    const hostileValue = fc.oneof(
      fc.jsonValue({ maxDepth: 2, stringUnit: 'binary' }) as fc.Arbitrary<JsonValue>,
      fc.constantFrom<JsonValue>(
        '',
        '\ud800',
        'a\udc00b',
        null,
        [],
        {},
        [{}],
        [{ name: 'x' }],
        { name: '' },
        'custom',
        'web_search_20250305',
        { type: 'tool' },
        { type: 'allowed_tools', allowed_tools: { tools: [1, null, {}] } },
      ),
    );
    const corrupted = fc
      .tuple(
        scenarioArb(),
        fc.array(fc.tuple(fc.array(segment, { minLength: 1, maxLength: 5 }), hostileValue), {
          minLength: 1,
          maxLength: 3,
        }),
      )
      .map(([s, edits]) => ({
        ...s,
        body: edits.reduce<JsonValue>(
          (body, [path, value]) => (isJsonObject(body) ? corrupt(body, path, value) : body),
          s.body,
        ) as JsonObject,
      }));
    const garbage = fc
      .tuple(scenarioArb(), fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }))
      .map(([s, body]) => ({ ...s, body: body as JsonObject }));
    const hostileBody = fc.oneof(
      { weight: 3, arbitrary: corrupted },
      { weight: 1, arbitrary: garbage },
    );
    fc.assert(
      fc.property(hostileBody, (s) => {
        try {
          mediate(s);
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
        }
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('2. never shows the provider a hidden tool', () => {
    fc.assert(
      fc.property(scenarioArb(), (s) => {
        const bundle = bundleOf(s);
        const result = mediate(s, bundle);
        for (const t of result.tools) {
          if (t.policy_state === 'hidden') expect(t.visible_to_provider).toBe(false);
        }
        // No provider-visible tool is matched by an enforced hide rule (engine matchers) …
        const facts = { surface: s.surface, model: String(s.body.model), identity: {} };
        const hides = bundle.rules.filter(
          (r) => r.mode !== 'observe' && r.rule.action === 'hide' && r.appliesTo(facts),
        );
        for (const t of result.tools.filter((t) => t.visible_to_provider)) {
          const matching = hides.filter((r) => r.matchesTool(t.name, t.declared_by));
          expect(
            matching.map((r) => `${r.policy}/${r.rule.id}`),
            t.name,
          ).toEqual([]);
        }
        // … and, read straight from the specs, no declaration the provider gets maps back to a
        // name an enforced exact-name hide rule targets, or to a tool that is only hidden.
        const hiddenExact = new Set<string>();
        for (const policy of s.policies) {
          const spec = policy.spec as { mode: Mode; rules: JsonObject[] };
          if (spec.mode === 'observe') continue;
          for (const rule of spec.rules) {
            const match = rule.match as JsonObject;
            const name = String(match.name);
            if (rule.action !== 'hide' || rule.enabled === false || !isExactPattern(name)) continue;
            if (match.declared_by !== undefined) continue;
            if (match.provider !== undefined && match.provider !== s.surface) continue;
            hiddenExact.add(name);
          }
        }
        const providerNames = new Set<string>();
        for (const d of declarations(result.body)) {
          const providerName = declName(s.surface, d);
          providerNames.add(providerName);
          const call = result.response.decideCall('x', providerName, '{}');
          expect(hiddenExact.has(call.name), `${providerName} → ${call.name}`).toBe(false);
          const records = result.tools.filter((t) => t.name === call.name);
          expect(records.some((t) => t.policy_state !== 'hidden')).toBe(true);
        }
        // A call to a hidden tool is blocked (unless its name now belongs to a visible tool).
        for (const t of result.tools) {
          if (t.policy_state !== 'hidden' || providerNames.has(t.name)) continue;
          expect(result.response.decideCall('x', t.name, '{}').policy_state).toBe('blocked');
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('3. gives the provider unique, provider-legal function names', () => {
    fc.assert(
      fc.property(scenarioArb(), (s) => {
        const result = mediate(s);
        const decls = declarations(result.body);
        const names = decls.map((d) => declName(s.surface, d));
        expect(new Set(names).size, names.join(', ')).toBe(names.length);
        for (const d of decls) {
          if (isFunctionDecl(s.surface, d)) expect(declName(s.surface, d)).toMatch(PROVIDER_NAME);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('4. never sends an orphaned tool_choice (or parallel_tool_calls without tools)', () => {
    fc.assert(
      fc.property(scenarioArb(), (s) => {
        const result = mediate(s);
        // An untouched request is forwarded as is: it is only held to this when the agent's
        // own request was consistent. Whatever mediation rewrites must always be.
        if (!result.changed && toolChoiceProblems(s.surface, s.body).length > 0) return;
        expect(toolChoiceProblems(s.surface, result.body)).toEqual([]);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('5. is deterministic, and blind to key order', () => {
    fc.assert(
      fc.property(scenarioArb(), fc.integer(), (s, seed) => {
        const bundle = bundleOf(s);
        const first = mediate(s, bundle);
        // Same bundle (memo hit), fresh bundle, and a bundle without memo: all identical.
        const unmemoized = compileBundle({ policies: s.policies, memoSize: 0 });
        for (const again of [mediate(s, bundle), mediate(s), mediate(s, unmemoized)]) {
          expect(JSON.stringify(again.body)).toBe(JSON.stringify(first.body));
          expect(JSON.stringify(again.mediation)).toBe(JSON.stringify(first.mediation));
          expect(JSON.stringify(again.tools)).toBe(JSON.stringify(first.tools));
          expect(again.changed).toBe(first.changed);
        }
        const shuffled: Scenario = {
          surface: s.surface,
          body: shuffledCopy(s.body, seed),
          hostedTools: shuffledCopy(s.hostedTools, seed + 1),
          policies: s.policies.map((p) => ({ ...p, spec: shuffledCopy(p.spec, seed + 2) })),
        };
        const shuffledBundle = bundleOf(shuffled);
        expect(shuffledBundle.etag).toBe(bundle.etag);
        const other = mediate(shuffled, shuffledBundle);
        expect(canonicalize(other.body)).toBe(canonicalize(first.body));
        expect(canonicalize(other.mediation ?? null)).toBe(canonicalize(first.mediation ?? null));
        expect(other.tools.map((t) => t.schema_hash)).toEqual(
          first.tools.map((t) => t.schema_hash),
        );
        expect(canonicalize(other.tools)).toBe(canonicalize(first.tools));
        expect(other.changed).toBe(first.changed);
      }),
      { numRuns: RUNS },
    );
  });

  it('6. observe-only bundles never change the request', () => {
    const toPatch = (s: Scenario): Scenario => ({
      ...s,
      policies: s.policies.map((p) => ({
        ...p,
        spec: { ...(p.spec as JsonObject), mode: 'patch' },
      })),
    });
    // Legal, unique names and no gateway-hosted tools: nothing to fix, so the very input goes out.
    fc.assert(
      fc.property(
        scenarioArb({ names: LEGAL_NAMES, unique: true, hosted: false, modes: ['observe'] }),
        (s) => {
          const result = mediate(s);
          expect(result.body).toBe(s.body);
          expect(result.changed).toBe(false);
          const block = result.mediation;
          if (block !== undefined) {
            expect(block.mode).toBe('observe');
            expect(block.applied_rules).toEqual([]);
            expect(block.provider_visible_tools).toEqual(block.original_tools);
          }
          // The annotations say exactly what patch mode would have done.
          const patched = mediate(toPatch(s));
          expect(block?.observed_rules ?? []).toEqual(patched.mediation?.applied_rules ?? []);
        },
      ),
      { numRuns: RUNS },
    );
    // Any request: observe rules add nothing to what the engine does with an empty bundle
    // (automatic aliases, deduplication, hosted tools).
    fc.assert(
      fc.property(scenarioArb({ modes: ['observe'] }), (s) => {
        const result = mediate(s);
        const bare = mediate({ ...s, policies: [] });
        expect(canonicalize(result.body)).toBe(canonicalize(bare.body));
        expect(result.changed).toBe(bare.changed);
        expect(result.mediation?.applied_rules ?? []).toEqual([]);
        expect(canonicalize(result.tools)).toBe(canonicalize(bare.tools));
      }),
      { numRuns: RUNS },
    );
  });

  it('7. rules that change nothing leave no trace', () => {
    const NO_MATCH = ['delete_repo', 'drop_database', 'nothing/*', 'zz*', '/^zz_/', '/^$/'];
    const noOp = scenarioArb({
      names: LEGAL_NAMES,
      unique: true,
      hosted: false,
      rules: ruleArb(NO_MATCH),
    }).chain((s) => {
      const decls = declarations(s.body);
      const present = new Set(decls.map((d) => declName(s.surface, d)));
      if (s.body.web_search_options !== undefined) present.add('web_search');
      const candidates: JsonObject[] = [];
      // Request-level MCP servers: renaming or augmenting them does not apply.
      for (const server of Array.isArray(s.body.mcp_servers) ? s.body.mcp_servers : []) {
        const name = String((server as JsonObject).name);
        present.add(name);
        candidates.push({ match: { name }, action: 'rename', alias: 'renamed_server' });
        candidates.push({ match: { name }, action: 'augment', description_append: 'x' });
      }
      // Rules for pool names that are not in the request.
      const absent = LEGAL_NAMES.filter((n) => !present.has(n));
      for (const d of decls) {
        const name = declName(s.surface, d);
        // Rename to its own name, and (for the server tool) actions that do not apply to it.
        candidates.push({ match: { name }, action: 'rename', alias: name });
        if (!isFunctionDecl(s.surface, d)) {
          candidates.push({ match: { name }, action: 'augment', description_append: 'x' });
          continue;
        }
        // Augment with the schema it already has. Not for an OpenAI tool without `type`: the
        // rewrite adds `type: "function"`, which the engine counts as a change (see report).
        const openai = s.surface === 'openai-chat';
        const own = openai ? (d.function as JsonObject).parameters : d.input_schema;
        if (isJsonObject(own) && (!openai || d.type === 'function')) {
          candidates.push({ match: { name }, action: 'augment', parameters: structuredClone(own) });
        }
        // Replace with the identical declaration (only plain ones can be identical).
        const fn = s.surface === 'openai-chat' ? (d.function as JsonObject) : d;
        const plain = Object.keys(fn).every((k) =>
          ['name', 'description', 'parameters', 'input_schema'].includes(k),
        );
        const typed = s.surface === 'openai-chat' ? d.type === 'function' : d.type === undefined;
        if (plain && typed)
          candidates.push({ match: { name }, action: 'replace', tool: structuredClone(fn) });
      }
      const hits = fc.shuffledSubarray(candidates);
      const misses = fc.array(
        fc.tuple(
          absent.length > 0 ? fc.constantFrom(...absent) : fc.constant('delete_repo'),
          actionArb,
        ),
        { maxLength: 3 },
      );
      return fc
        .tuple(hits, misses, fc.constantFrom<Mode>('observe', 'patch'))
        .map(([hitRules, missRules, mode]): Scenario => {
          const extra = [
            ...hitRules,
            ...missRules.map(([name, action]) => ({ match: { name }, ...action })),
          ];
          const policies = [
            ...s.policies,
            {
              name: 'noop',
              generation: 1,
              spec: { mode, rules: extra.map((rule, i) => ({ id: `noop-${i}`, ...rule })) },
            },
          ];
          return { ...s, policies };
        });
    });
    fc.assert(
      fc.property(noOp, (s) => {
        const result = mediate(s);
        expect(result.mediation).toBeUndefined();
        expect(result.changed).toBe(false);
        expect(result.body).toBe(s.body);
        for (const t of result.tools) {
          expect(['allowed', 'deferred', 'opaque']).toContain(t.policy_state);
          expect(t.visible_to_provider).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('8. never mutates its input (request, hosted tools, policies)', () => {
    fc.assert(
      fc.property(scenarioArb(), (s) => {
        const before = JSON.stringify(s);
        deepFreeze(s);
        const bundle = bundleOf(s);
        let result: MediationResult | undefined;
        expect(() => {
          result = mediate(s, bundle);
        }).not.toThrow();
        expect(JSON.stringify(s)).toBe(before);
        // And again on the same (frozen) objects, with the bundle's memo warm.
        expect(JSON.stringify(mediate(s, bundle).body)).toBe(JSON.stringify(result?.body));
      }),
      { numRuns: RUNS },
    );
  });

  it('8b. gives a frozen request seen before (a tool list shared by the parser) what a fresh one gets', () => {
    fc.assert(
      fc.property(scenarioArb(), (s) => {
        const fresh = JSON.parse(JSON.stringify(s)) as Scenario;
        const expected = mediate(fresh, compileBundle({ policies: s.policies, memoSize: 0 }));
        deepFreeze(s);
        const bundle = bundleOf(s);
        mediate(s, bundle);
        // The second time, what was read and decided from the frozen list is reused.
        const again = mediate(s, bundle);
        expect(JSON.stringify(again.body)).toBe(JSON.stringify(expected.body));
        expect(JSON.stringify(again.mediation)).toBe(JSON.stringify(expected.mediation));
        expect(JSON.stringify(again.tools)).toBe(JSON.stringify(expected.tools));
        for (const t of expected.tools) {
          for (const name of [t.name, t.provider_name ?? t.name]) {
            expect(again.response.decideCall('id', name, '{}')).toEqual(
              expected.response.decideCall('id', name, '{}'),
            );
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('9. maps every provider-facing name back to the agent’s own name', () => {
    const roundTrip = (s: Scenario) => {
      const result = mediate(s);
      for (const t of result.tools) {
        if (!t.visible_to_provider || t.type !== 'function') continue;
        if (META_TOOLS.has(t.name)) continue;
        const providerName = t.provider_name ?? t.name;
        const call = result.response.decideCall('id', providerName, '{}');
        expect(call.name, providerName).toBe(t.name);
        expect(call.policy_state, providerName).toBe('allowed');
        expect(call.provider_name).toBe(t.provider_name);
      }
      // History follows: a past call to a tool that is still offered is renamed with it.
      const before = historyCallNames(s.surface, s.body);
      const after = historyCallNames(s.surface, result.body);
      expect(after).toHaveLength(before.length);
      for (const [i, name] of before.entries()) {
        // Only callable function tools: a request-level tool such as web_search_options is
        // never called by name, so its name may legitimately go to a replacement.
        const offered = (t: (typeof result.tools)[number]) =>
          t.name === name && t.visible_to_provider && t.type === 'function';
        if (!result.tools.some(offered)) continue;
        expect(result.response.decideCall('h', after[i] as string, '{}').name).toBe(name);
      }
    };
    fc.assert(fc.property(scenarioArb(), roundTrip), { numRuns: RUNS });
    fc.assert(fc.property(requestLevelScenarioArb(), roundTrip), { numRuns: RUNS });
  });

  /** The provider names `body.tools` declares, and those the tool records claim it declares. */
  const sentAndRecorded = (s: Scenario) => {
    const result = mediate(s);
    const recorded = result.tools
      .filter((t) => t.visible_to_provider && inToolsArray(t))
      .map((t) => t.provider_name ?? t.name)
      .sort();
    const sent = declarations(result.body)
      .map((d) => declName(s.surface, d))
      .sort();
    return { sent, recorded };
  };

  it('10a. declares every gateway-hosted tool it records as provider-visible', () => {
    fc.assert(
      fc.property(scenarioArb({ hosted: true, requestLevel: false }), (s) => {
        const { sent, recorded } = sentAndRecorded(s);
        expect(sent).toEqual(recorded);
      }),
      { numRuns: RUNS },
    );
  });

  it('10b. declares the replacement of a request-level tool it records as provider-visible', () => {
    fc.assert(
      fc.property(requestLevelScenarioArb(), (s) => {
        const { sent, recorded } = sentAndRecorded(s);
        expect(sent).toEqual(recorded);
      }),
      { numRuns: RUNS },
    );
  });

  it('11. deduplicates the agent’s tools by name, legal or not', () => {
    fc.assert(
      fc.property(scenarioArb(), (s) => {
        const result = mediate(s);
        const names = result.tools
          .filter((t) => t.visible_to_provider && inToolsArray(t) && t.capability === undefined)
          .filter((t) => t.declared_by === 'agent' || t.declared_by === 'mcp')
          .map((t) => t.name);
        expect(new Set(names).size, names.join(', ')).toBe(names.length);
      }),
      { numRuns: RUNS },
    );
  });

  it('12. augment merges every key of its parameters fragment', () => {
    const KEYS = ['type', 'properties', 'required', 'q', 'enum', 'constructor', '__proto__'];
    const leaf = fc.oneof(
      fc.string({ maxLength: 4 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.uniqueArray(fc.constantFrom('q', 'repo'), { maxLength: 2 }),
    ) as fc.Arbitrary<JsonValue>;
    const { node } = fc.letrec<{ node: JsonObject }>((tie) => ({
      node: fc
        .array(
          fc.tuple(fc.constantFrom(...KEYS), fc.oneof({ depthSize: 'small' }, leaf, tie('node'))),
          {
            maxLength: 4,
          },
        )
        // Object.fromEntries defines own properties, `__proto__` included (like JSON.parse).
        .map((entries) => Object.fromEntries(entries) as JsonObject),
    }));
    const expectMerged = (fragment: JsonObject, out: JsonValue | undefined, path: string) => {
      expect(isJsonObject(out), path).toBe(true);
      const merged = out as JsonObject;
      for (const key of Object.keys(fragment)) {
        const value = fragment[key] as JsonValue;
        expect(Object.hasOwn(merged, key), `${path}.${key}`).toBe(true);
        const got = merged[key];
        if (key === 'required' && Array.isArray(value) && Array.isArray(got)) {
          for (const item of value) expect(got).toContainEqual(item);
        } else if (isJsonObject(value)) expectMerged(value, got, `${path}.${key}`);
        else expect(got, `${path}.${key}`).toEqual(value);
      }
    };
    fc.assert(
      fc.property(fc.constantFrom(...SURFACES), schemaArb, node, (surface, params, fragment) => {
        const body = {
          model: 'm',
          tools: [renderTool(surface, { name: 'search', params })],
        };
        const s: Scenario = {
          surface,
          body,
          hostedTools: [],
          policies: [
            {
              name: 'p',
              generation: 1,
              spec: {
                rules: [
                  { id: 'a', action: 'augment', match: { name: 'search' }, parameters: fragment },
                ],
              },
            },
          ],
        };
        const decl = declarations(mediate(s).body)[0] ?? {};
        const fn = isJsonObject(decl.function) ? decl.function : {};
        const out = surface === 'openai-chat' ? fn.parameters : decl.input_schema;
        expectMerged(fragment, out, 'parameters');
      }),
      { numRuns: RUNS },
    );
  });
});
