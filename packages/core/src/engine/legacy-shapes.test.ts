import { describe, expect, it } from 'vitest';
import { UnsupportedRequestError, ValidationError } from '../errors.ts';
import type { JsonObject } from '../json/json-value.ts';
import { compileBundle } from './compile-bundle.ts';
import { mediateRequest } from './mediate-request.ts';
import { anthropicRequest, anthropicTool, bundleOf, openAITool } from './test-fixtures.ts';

const bare = (name: string, extra: JsonObject = {}): JsonObject => ({
  name,
  description: `${name} function`,
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
  ...extra,
});

function legacy(functions: JsonObject[], extra: JsonObject = {}): JsonObject {
  return {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
    functions,
    ...extra,
  };
}

const RULES = bundleOf({
  rules: [
    { id: 'hide-pr', action: 'hide', match: { name: 'create_pull_request' } },
    { id: 'scope', action: 'augment', match: { name: 'search' }, description_append: 'Acme only.' },
    { id: 'gh', action: 'rename', match: { name: 'github/create_issue' }, alias: 'gh_issue' },
  ],
});
const run = (bundle: ReturnType<typeof bundleOf>, body: JsonObject, extra = {}) =>
  mediateRequest(bundle, { surface: 'openai-chat', body, ...extra });
const names = (body: JsonObject) =>
  ((body.functions as JsonObject[] | undefined) ?? []).map((f) => f.name);

describe('OpenAI legacy functions are mediated like tools', () => {
  const body = legacy([bare('search'), bare('create_pull_request'), bare('github/create_issue')], {
    function_call: { name: 'github/create_issue' },
    messages: [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        function_call: { name: 'github/create_issue', arguments: '{}' },
      },
      { role: 'function', name: 'github/create_issue', content: 'done' },
    ],
  });

  it('hides, augments and renames them, in their own bare form', () => {
    const result = run(RULES, body);
    expect(names(result.body)).toEqual(['search', 'gh_issue']);
    expect(result.body).not.toHaveProperty('tools');
    expect((result.body.functions as JsonObject[])[0]).toEqual(
      bare('search', { description: 'search function\n\nAcme only.' }),
    );
    expect(result.tools.map((t) => [t.name, t.policy_state])).toEqual([
      ['search', 'wrapped'],
      ['create_pull_request', 'hidden'],
      ['github/create_issue', 'wrapped'],
    ]);
    expect(result.mediation?.provider_visible_tools.map((t) => t.name)).toEqual([
      'search',
      'gh_issue',
    ]);
  });

  it('renames function_call and the history with its function', () => {
    const out = run(RULES, body).body;
    expect(out.function_call).toEqual({ name: 'gh_issue' });
    const messages = out.messages as JsonObject[];
    expect(messages[1]?.function_call).toEqual({ name: 'gh_issue', arguments: '{}' });
    expect(messages[2]).toMatchObject({ role: 'function', name: 'gh_issue' });
  });

  it.each([
    [{ name: 'create_pull_request' }, undefined],
    ['auto', 'auto'],
  ])('drops a function_call naming a hidden function (%j)', (choice, expected) => {
    const out = run(
      RULES,
      legacy([bare('search'), bare('create_pull_request')], { function_call: choice }),
    ).body;
    expect(out.function_call).toEqual(expected);
  });

  it('drops functions and function_call when none remains', () => {
    const out = run(RULES, legacy([bare('create_pull_request')], { function_call: 'auto' })).body;
    expect(out).not.toHaveProperty('functions');
    expect(out).not.toHaveProperty('function_call');
  });

  it('writes replacements, aliases and gateway-hosted tools as bare functions', () => {
    const bundle = bundleOf({
      rules: [
        {
          id: 'r',
          action: 'replace',
          match: { name: 'search' },
          tool: {
            type: 'function',
            function: { name: 'safe_search', parameters: { type: 'object' } },
          },
        },
      ],
    });
    const result = run(bundle, legacy([bare('search'), bare('jira.search')]), {
      hostedTools: [
        { name: 'approve', description: 'ask a human', parameters: { type: 'object' } },
      ],
    });
    expect(result.body.functions).toEqual([
      { name: 'safe_search', parameters: { type: 'object' } },
      { ...bare('jira.search'), name: 'jira_search' },
      { name: 'approve', description: 'ask a human', parameters: { type: 'object' } },
    ]);
    expect(result.response.decideCall('c', 'safe_search', '{}').name).toBe('search');
    expect(result.response.decideCall('c', 'jira_search', '{}').name).toBe('jira.search');
  });

  it('decides legacy calls on the way back by the same names', () => {
    const { response } = run(RULES, body);
    expect(response.decideCall('', 'gh_issue', '{}')).toMatchObject({
      name: 'github/create_issue',
      policy_state: 'allowed',
    });
    expect(response.decideCall('', 'create_pull_request', '{}')).toMatchObject({
      policy_state: 'blocked',
      reason: 'hidden',
    });
  });

  it('gives the same result with and without the memo', () => {
    const memoless = compileBundle({
      memoSize: 0,
      policies: [
        { name: 'policy-0', generation: 1, spec: { rules: RULES.rules.map((r) => r.rule) } },
      ],
    });
    const a = run(RULES, body);
    const b = run(memoless, body);
    expect(JSON.stringify(a.body)).toBe(JSON.stringify(b.body));
    expect(a.mediation).toEqual(b.mediation);
    // The same declarations as tools are a different request shape: no memo entry is shared.
    const asTools = run(RULES, { model: 'm', messages: [], tools: [openAITool('search')] }).body;
    expect((asTools.tools as JsonObject[])[0]).toHaveProperty('function');
  });
});

describe('request shapes the engine refuses', () => {
  const bundle = bundleOf({ rules: [] });
  it.each<[string, JsonObject, string]>([
    ['functions with tools', legacy([bare('a')], { tools: [openAITool('b')] }), 'tools'],
    ['functions with tool_choice', legacy([bare('a')], { tool_choice: 'auto' }), 'tool_choice'],
    [
      'function_call with tools',
      { model: 'm', tools: [openAITool('a')], function_call: 'auto' },
      'function_call',
    ],
    ['functions not an array', legacy({} as never), 'functions'],
    ['a function that is not an object', legacy([bare('a'), 7 as never]), 'functions[1]'],
    ['a function without a name', legacy([{ description: 'x' }]), 'functions[0].name'],
  ])('%s → %s', (_name, body, field) => {
    const error = (() => {
      try {
        run(bundle, body);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).causes.map((c) => c.field)).toContain(field);
  });

  it.each<JsonObject>([{ type: 'create' }, { type: 'continue', previous_message_id: 'msg_1' }])(
    'refuses an Anthropic thread (%j) with the provider’s details',
    (thread) => {
      const body = anthropicRequest([anthropicTool('a')], { thread });
      const error = (() => {
        try {
          mediateRequest(bundle, { surface: 'anthropic-messages', body });
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(UnsupportedRequestError);
      expect((error as UnsupportedRequestError).causes[0]?.field).toBe('thread');
      expect((error as UnsupportedRequestError).providerDetails).toMatchObject({
        error_code: 'thread_unsupported_request',
      });
    },
  );

  it('refuses tool_addition and tool_removal blocks, by path', () => {
    const body = anthropicRequest([anthropicTool('a')], {
      system: [
        { type: 'text', text: 's' },
        { type: 'tool_removal', tool: { type: 'tool_reference', name: 'a' } },
      ],
      messages: [
        { role: 'user', content: 'plain' },
        {
          role: 'user',
          content: [{ type: 'tool_addition', tool: { type: 'tool_reference', name: 'a' } }],
        },
      ],
    });
    expect(() => mediateRequest(bundle, { surface: 'anthropic-messages', body })).toThrow(
      /system\[1\]: tool_removal blocks.*messages\[1\]\.content\[0\]: tool_addition blocks/,
    );
  });
});
