import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../errors.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../json/json-value.ts';
import type { MediationPolicySpecInput } from '../../resources/mediation-policy.ts';
import { compileBundle } from '../compile-bundle.ts';
import { mediateRequest } from '../mediate-request.ts';
import { isProviderLegalName } from '../provider-names.ts';

/**
 * The OpenAI Responses adapter as properties, over random requests (function, custom and typed
 * tools, legal and illegal names, every tool_choice form, a history of calls) and random
 * policies (hide, augment, replace, rename): whatever they are, the provider request is
 * consistent — no tool_choice or allowed_tools entry naming a tool it is not offered, nothing
 * hidden offered, function names legal and unique, history renamed with the tools — every
 * provider name maps back to the agent's, and the same input gives the same output.
 */

const NAMES = ['search', 'create_pr', 'github/create_issue', 'jira.search', 'web_search', 'send'];
const TYPED: JsonObject[] = [
  { type: 'web_search' },
  { type: 'web_search_preview' },
  { type: 'file_search', vector_store_ids: ['vs_1'] },
  { type: 'code_interpreter', container: { type: 'auto' } },
  { type: 'mcp', server_label: 'github', server_url: 'https://mcp.example.com/gh' },
  { type: 'mcp', server_label: 'docs', server_url: 'https://mcp.example.com/docs' },
  { type: 'computer_use_preview', display_width: 800, display_height: 600, environment: 'linux' },
  { type: 'local_shell' },
  { type: 'image_generation' },
];
/** What rules match typed tools by. */
const TYPED_NAMES = [
  'web_search',
  'file_search',
  'code_interpreter',
  'github',
  'docs',
  'computer',
  'local_shell',
  'image_generation',
];

const fnTool = (name: string, custom: boolean): JsonObject =>
  custom
    ? { type: 'custom', name }
    : { type: 'function', name, parameters: { type: 'object', properties: {} }, strict: false };

const toolArb = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .record({ name: fc.constantFrom(...NAMES), custom: fc.boolean() })
      .map((t) => fnTool(t.name, t.custom)),
  },
  { weight: 1, arbitrary: fc.constantFrom(...TYPED) },
);

const refArb: fc.Arbitrary<JsonObject> = fc.oneof(
  fc.constantFrom(...NAMES).map((name) => ({ type: 'function', name })),
  fc.constantFrom(...NAMES).map((name) => ({ type: 'custom', name })),
  fc
    .constantFrom(
      'web_search_preview',
      'file_search',
      'code_interpreter',
      'image_generation',
      'computer_use_preview',
      'local_shell',
    )
    .map((type) => ({ type })),
  fc
    .constantFrom('github', 'docs', 'gitlab')
    .map((label) => ({ type: 'mcp', server_label: label })),
);

const choiceArb: fc.Arbitrary<JsonValue | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('auto', 'none', 'required'),
  refArb,
  fc
    .record({
      mode: fc.constantFrom('auto', 'required'),
      tools: fc.array(refArb, { minLength: 1, maxLength: 4 }),
    })
    .map((a) => ({ type: 'allowed_tools', ...a })),
);

const ruleArb = fc.oneof(
  fc
    .constantFrom(...NAMES, ...TYPED_NAMES, 'github/*', '*search*')
    .map((name) => ({ action: 'hide' as const, match: { name } })),
  fc.constantFrom(...NAMES).map((name) => ({
    action: 'augment' as const,
    match: { name },
    description_append: 'Careful.',
  })),
  fc.constantFrom(...NAMES, 'web_search').map((name) => ({
    action: 'replace' as const,
    match: { name },
    tool: { name: `vetted_${name.replace(/\W/g, '_')}`, description: 'Vetted.' },
  })),
  fc
    .record({
      name: fc.constantFrom(...NAMES),
      alias: fc.constantFrom('alias_a', 'alias_b', 'search'),
    })
    .map((r) => ({
      action: 'rename' as const,
      match: { name: r.name },
      alias: r.alias,
    })),
);

interface Scenario {
  tools: JsonObject[];
  choice: JsonValue | undefined;
  parallel: boolean | undefined;
  history: string | undefined;
  /** Rules without their ids (numbered when the policy is made). */
  rules: Array<Record<string, unknown>>;
}

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  tools: fc.array(toolArb, { maxLength: 7 }),
  choice: choiceArb,
  parallel: fc.option(fc.boolean(), { nil: undefined }),
  history: fc.option(fc.constantFrom(...NAMES), { nil: undefined }),
  rules: fc.array(ruleArb, { maxLength: 4 }),
});

function request(s: Scenario): JsonObject {
  const input: JsonValue[] = [{ role: 'user', content: 'go' }];
  if (s.history !== undefined) {
    input.push(
      { type: 'function_call', call_id: 'call_h', name: s.history, arguments: '{"q":"x"}' },
      { type: 'function_call_output', call_id: 'call_h', output: 'ok' },
    );
  }
  const body: JsonObject = { model: 'gpt-4.1', input, tools: s.tools };
  if (s.choice !== undefined) body.tool_choice = s.choice;
  if (s.parallel !== undefined) body.parallel_tool_calls = s.parallel;
  return body;
}

function mediate(s: Scenario) {
  const rules = s.rules.map((r, i) => ({ id: `r${i}`, ...r }));
  const spec = { rules } as MediationPolicySpecInput;
  const bundle = compileBundle({ policies: [{ name: 'p', generation: 1, spec }] });
  return mediateRequest(bundle, { surface: 'openai-responses', body: request(s) });
}

const sent = (body: JsonObject) =>
  Array.isArray(body.tools) ? body.tools.filter(isJsonObject) : [];
const called = (tools: JsonObject[]) =>
  new Set(
    tools.filter((t) => t.type === 'function' || t.type === 'custom').map((t) => String(t.name)),
  );

/** Whether a tool_choice reference names something the provider is offered. */
function offered(ref: JsonObject, tools: JsonObject[]): boolean {
  if (ref.type === 'function' || ref.type === 'custom') return called(tools).has(String(ref.name));
  if (ref.type === 'mcp')
    return tools.some((t) => t.type === 'mcp' && t.server_label === ref.server_label);
  const same: Record<string, string[]> = {
    web_search_preview: ['web_search', 'web_search_preview'],
  };
  return tools.some((t) => (same[String(ref.type)] ?? [String(ref.type)]).includes(String(t.type)));
}

describe('openai-responses mediation properties', () => {
  it('keeps tool_choice, allowed_tools and parallel_tool_calls consistent with the tools sent', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        let result: ReturnType<typeof mediate>;
        try {
          result = mediate(s);
        } catch (error) {
          // Only a custom tool choice or history may be refused, never a crash.
          expect(error).toBeInstanceOf(ValidationError);
          return;
        }
        // An unchanged request goes on as the agent wrote it, inconsistencies and all: what
        // is held to the rules is what mediation writes.
        if (!result.changed) return;
        const tools = sent(result.body);
        const choice = result.body.tool_choice;
        if (tools.length === 0) {
          expect(result.body).not.toHaveProperty('tools');
          expect(result.body).not.toHaveProperty('tool_choice');
          expect(result.body).not.toHaveProperty('parallel_tool_calls');
        }
        if (isJsonObject(choice)) {
          const refs = choice.type === 'allowed_tools' ? (choice.tools as JsonObject[]) : [choice];
          expect(refs.length).toBeGreaterThan(0);
          for (const ref of refs) expect(offered(ref, tools), JSON.stringify(ref)).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('never offers a hidden tool; names are legal, unique, and map back to the agent’s', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const result = mediate(s);
        const tools = sent(result.body);
        const names = tools.filter((t) => t.type === 'function').map((t) => String(t.name));
        expect(new Set(names).size).toBe(names.length);
        for (const name of names) expect(isProviderLegalName(name), name).toBe(true);
        for (const record of result.tools) {
          if (record.policy_state === 'hidden') expect(record.visible_to_provider).toBe(false);
          if (!record.visible_to_provider) continue;
          if (record.type === 'function' || record.type === 'custom') {
            const providerName = record.provider_name ?? record.name;
            expect(called(tools).has(providerName), providerName).toBe(true);
            const decision = result.response.decideCall('c', providerName, '{}');
            expect(decision.name).toBe(record.name);
            expect(decision.policy_state).toBe('allowed');
          }
        }
        for (const record of result.tools.filter((r) => r.policy_state === 'hidden')) {
          if (record.type === 'mcp') {
            expect(tools.some((t) => t.type === 'mcp' && t.server_label === record.name)).toBe(
              false,
            );
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  it('renames the history with the tools, and is deterministic', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const result = mediate(s);
        expect(JSON.stringify(mediate(s).body)).toBe(JSON.stringify(result.body));
        if (s.history === undefined) return;
        // A custom or typed tool of the same name is called through its own item, never a
        // function_call: a history naming it is not the function's.
        const shared = s.tools.some(
          (t) => t.type !== 'function' && (t.name ?? t.type) === s.history,
        );
        if (shared || s.history === 'web_search') return;
        const input = result.body.input as JsonObject[];
        const historyName = input[1]?.name;
        const record = result.tools.find(
          (r) => r.name === s.history && r.type === 'function' && r.visible_to_provider,
        );
        // A visible function tool's history follows its provider name; anything else is left alone.
        expect(historyName).toBe(record ? (record.provider_name ?? record.name) : s.history);
      }),
      { numRuns: 300 },
    );
  });
});
