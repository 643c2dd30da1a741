import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../errors.ts';
import type { JsonObject } from '../../json/json-value.ts';
import { assignProviderNames } from '../provider-names.ts';
import { bundleOf } from '../test-fixtures.ts';
import { GEMINI_NAME_RULE } from './gemini.ts';
import {
  builtInNames,
  declarationNames,
  GEMINI_MODEL,
  geminiDeclaration,
  geminiRequest,
  mediateGemini,
  modelTurn,
  responseTurn,
} from './gemini-fixtures.ts';

const decl = geminiDeclaration;

function fieldsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).causes.map((c) => c.field);
  }
  throw new Error('expected a ValidationError');
}

describe('Gemini requests: reading tools', () => {
  it('reads function declarations and built-ins as tools, each built-in under its contract', () => {
    const body = geminiRequest(
      [decl('search_code'), decl('ns.lookup:v1')],
      [{ googleSearch: {} }, { codeExecution: {}, urlContext: {} }, { futureTool: { a: 1 } }],
    );
    const result = mediateGemini(bundleOf({ rules: [] }), body);
    expect(result.changed).toBe(false);
    expect(result.body).toBe(body);
    expect(result.model).toBe(GEMINI_MODEL);
    expect(result.stream).toBe(false);
    expect(
      result.tools.map((t) => [t.name, t.type, t.declared_by, t.capability ?? null, t.fidelity]),
    ).toEqual([
      ['search_code', 'function', 'agent', null, 'pass_through'],
      // Dots and colons are legal in Gemini names: no alias, the request goes on unchanged.
      ['ns.lookup:v1', 'function', 'agent', null, 'pass_through'],
      ['googleSearch', 'googleSearch', 'provider', 'wardwright.web_search.v1', 'provider_attested'],
      ['codeExecution', 'codeExecution', 'provider', 'wardwright.code_exec.v1', 'normalized'],
      ['urlContext', 'urlContext', 'provider', 'wardwright.url_fetch.v1', 'provider_attested'],
      // A field Google adds later is still a tool a policy can hide, with nothing proven.
      ['futureTool', 'futureTool', 'provider', null, 'opaque'],
    ]);
  });

  it('takes the model and the stream flag from the target (the URL path)', () => {
    const result = mediateGemini(bundleOf({ rules: [] }), geminiRequest([decl('a')]), {}, true);
    expect([result.model, result.stream]).toEqual([GEMINI_MODEL, true]);
    // Without a target (a preview, `toolgate eval`), a `model` in the body is used.
    expect(() =>
      mediateGemini(bundleOf({ rules: [] }), geminiRequest([decl('a')]), { target: undefined }),
    ).toThrow(ValidationError);
    const named = geminiRequest([decl('a')], [], { model: 'gemini-1.5-pro' });
    expect(mediateGemini(bundleOf({ rules: [] }), named, { target: undefined }).model).toBe(
      'gemini-1.5-pro',
    );
    // With one, a body `model` may only repeat it (the provider must not route elsewhere).
    for (const model of [GEMINI_MODEL, `models/${GEMINI_MODEL}`]) {
      const body = geminiRequest([decl('a')], [], { model });
      expect(mediateGemini(bundleOf({ rules: [] }), body).model).toBe(GEMINI_MODEL);
    }
  });

  it.each<[string, JsonObject, string]>([
    ['a body model other than the path’s', { model: 'models/gemini-2.5-pro' }, 'model'],
    ['tools not an array', { tools: { functionDeclarations: [] } }, 'tools'],
    ['an entry not an object', { tools: [1] }, 'tools[0]'],
    [
      'declarations not an array',
      { tools: [{ functionDeclarations: {} }] },
      'tools[0].functionDeclarations',
    ],
    [
      'a declaration without a name',
      { tools: [{ functionDeclarations: [decl('a'), decl('b'), { description: 'x' }] }] },
      'tools[0].functionDeclarations[2].name',
    ],
    [
      'a name that is not a string',
      { tools: [{}, { functionDeclarations: [{ name: 42 }] }] },
      'tools[1].functionDeclarations[0].name',
    ],
    [
      'parameters not an object',
      { tools: [{ functionDeclarations: [{ name: 'a', parameters: 'object' }] }] },
      'tools[0].functionDeclarations[0].parameters',
    ],
    [
      'both schema forms',
      {
        tools: [
          { functionDeclarations: [{ name: 'a', parameters: {}, parametersJsonSchema: {} }] },
        ],
      },
      'tools[0].functionDeclarations[0].parametersJsonSchema',
    ],
    [
      'a built-in that is not an object',
      { tools: [{ googleSearch: true }] },
      'tools[0].googleSearch',
    ],
    ['cached content', { cachedContent: 'cachedContents/abc' }, 'cachedContent'],
    ['toolConfig not an object', { toolConfig: [] }, 'toolConfig'],
    [
      'allowedFunctionNames not strings',
      { toolConfig: { functionCallingConfig: { allowedFunctionNames: ['a', 7] } } },
      'toolConfig.functionCallingConfig.allowedFunctionNames[1]',
    ],
    [
      'streamed call arguments',
      { toolConfig: { functionCallingConfig: { streamFunctionCallArguments: true } } },
      'toolConfig.functionCallingConfig.streamFunctionCallArguments',
    ],
    ['contents not an array', { contents: 'hi' }, 'contents'],
    ['parts not an array', { contents: [{ role: 'user', parts: 'hi' }] }, 'contents[0].parts'],
  ])('refuses %s, naming %s', (_what, fields, field) => {
    const body = { ...geminiRequest([decl('a')]), ...fields };
    expect(fieldsOf(() => mediateGemini(bundleOf({ rules: [] }), body))).toContain(field);
  });

  it('refuses more tools than a receipt holds, counted across entries', () => {
    const many = Array.from({ length: 600 }, (_, i) => decl(`t${i}`));
    const body = geminiRequest(many.slice(0, 300), [{ functionDeclarations: many.slice(300) }]);
    expect(fieldsOf(() => mediateGemini(bundleOf({ rules: [] }), body))).toEqual(['tools']);
  });
});

describe('Gemini requests: rules', () => {
  const tools = [decl('search_code'), decl('create_pull_request'), decl('github/create_issue')];

  it('hides, augments, replaces and renames, with a Gemini-legal alias for the rest', () => {
    const bundle = bundleOf({
      rules: [
        { id: 'hide', action: 'hide', match: { name: 'create_pull_request' } },
        {
          id: 'scope',
          action: 'augment',
          match: { name: 'search_code' },
          description_append: 'Only acme repos.',
          parameters: { properties: { q: { maxLength: 64 } } },
        },
      ],
    });
    const result = mediateGemini(bundle, geminiRequest(tools, [{ googleSearch: {} }]));
    expect(declarationNames(result.body)).toEqual(['search_code', 'github_create_issue']);
    expect(builtInNames(result.body)).toEqual(['googleSearch']);
    const [functions] = result.body.tools as JsonObject[];
    const [search] = (functions as JsonObject).functionDeclarations as JsonObject[];
    expect(search).toEqual({
      name: 'search_code',
      description: 'search_code tool\n\nOnly acme repos.',
      parametersJsonSchema: {
        type: 'object',
        properties: { q: { type: 'string', maxLength: 64 } },
      },
    });
    const issue = result.tools.find((t) => t.name === 'github/create_issue');
    expect(issue?.provider_name).toBe('github_create_issue');
    expect(result.mediation?.applied_rules.map((r) => r.id)).toEqual(['hide', 'scope']);
  });

  it('writes a rule’s schema where the agent’s was: `parameters` stays `parameters`', () => {
    const openApi = {
      name: 'search',
      description: 'search tool',
      parameters: { type: 'OBJECT', properties: { q: { type: 'STRING' } } },
    };
    const bundle = bundleOf({
      rules: [
        {
          id: 'tighten',
          action: 'augment',
          match: { name: 'search' },
          parameters: { required: ['q'] },
        },
        {
          id: 'swap',
          action: 'replace',
          match: { name: 'fetch' },
          tool: { name: 'fetch', description: 'Vetted', parameters: { type: 'object' } },
        },
      ],
    });
    const result = mediateGemini(bundle, geminiRequest([openApi, decl('fetch')]));
    const written = (result.body.tools as JsonObject[])[0]?.functionDeclarations as JsonObject[];
    expect(written[0]).toEqual({
      name: 'search',
      description: 'search tool',
      parameters: { type: 'OBJECT', properties: { q: { type: 'STRING' } }, required: ['q'] },
    });
    // A replacement is a new declaration: JSON Schema, as the rule holds it.
    expect(written[1]).toEqual({
      name: 'fetch',
      description: 'Vetted',
      parametersJsonSchema: { type: 'object' },
    });
  });

  it('hides a built-in tool: its entry leaves the request, and `replace` turns it into a function', () => {
    const bundle = bundleOf({
      rules: [
        { id: 'no-search', action: 'hide', match: { name: 'googleSearch' } },
        {
          id: 'own-exec',
          action: 'replace',
          match: { name: 'codeExecution' },
          tool: { name: 'run_python', parameters: { type: 'object' } },
        },
      ],
    });
    const body = geminiRequest(
      [decl('a')],
      [{ googleSearch: {}, urlContext: {} }, { codeExecution: {} }],
    );
    const result = mediateGemini(bundle, body);
    expect(declarationNames(result.body)).toEqual(['a', 'run_python']);
    expect(builtInNames(result.body)).toEqual(['urlContext']);
    expect(result.tools.find((t) => t.name === 'googleSearch')?.policy_state).toBe('hidden');
  });

  it('drops the tools and the function calling config when nothing is left', () => {
    const bundle = bundleOf({ rules: [{ id: 'all', action: 'hide', match: { name: '*' } }] });
    const body = geminiRequest(tools, [{ googleSearch: {} }], {
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
    });
    const result = mediateGemini(bundle, body);
    expect(result.body.tools).toBeUndefined();
    expect(result.body.toolConfig).toBeUndefined();
  });

  it('keeps allowedFunctionNames to visible tools under their provider names', () => {
    const bundle = bundleOf({
      rules: [
        { id: 'hide', action: 'hide', match: { name: 'create_pull_request' } },
        { id: 'gh', action: 'rename', match: { name: 'github/create_issue' }, alias: 'gh_issue' },
      ],
    });
    const toolConfig = {
      functionCallingConfig: {
        mode: 'ANY',
        allowedFunctionNames: ['create_pull_request', 'github/create_issue', 'never_declared'],
      },
      retrievalConfig: { languageCode: 'en' },
    };
    const result = mediateGemini(bundle, geminiRequest(tools, [], { toolConfig }));
    expect(result.body.toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['gh_issue'] },
      retrievalConfig: { languageCode: 'en' },
    });
  });

  it('drops a config whose allowedFunctionNames are all hidden, keeping the rest of toolConfig', () => {
    const bundle = bundleOf({
      rules: [{ id: 'h', action: 'hide', match: { name: 'search_code' } }],
    });
    const toolConfig = {
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['search_code'] },
      retrievalConfig: { languageCode: 'en' },
    };
    const result = mediateGemini(bundle, geminiRequest(tools, [], { toolConfig }));
    expect(result.body.toolConfig).toEqual({ retrievalConfig: { languageCode: 'en' } });
  });

  it('drops the function calling config when only built-ins remain', () => {
    const bundle = bundleOf({
      rules: [{ id: 'h', action: 'hide', match: { declared_by: ['agent', 'mcp'] } }],
    });
    const body = geminiRequest(tools, [{ googleSearch: {} }], {
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
    });
    const result = mediateGemini(bundle, body);
    expect(result.body.tools).toEqual([{ googleSearch: {} }]);
    expect(result.body.toolConfig).toBeUndefined();
  });

  it('renames history for the provider: functionCall and functionResponse parts', () => {
    const bundle = bundleOf({
      rules: [{ id: 'gh', action: 'rename', match: { name: 'github/create_issue' }, alias: 'gh' }],
    });
    const body = geminiRequest([decl('github/create_issue'), decl('search_code')], [], {
      contents: [
        { role: 'user', parts: [{ text: 'file it' }] },
        modelTurn([
          ['github/create_issue', { title: 'x' }],
          ['search_code', { q: 'y' }],
        ]),
        responseTurn([
          ['github/create_issue', { output: 'ok' }],
          ['search_code', { output: [] }],
        ]),
      ],
    });
    const result = mediateGemini(bundle, body);
    const contents = result.body.contents as JsonObject[];
    expect(contents[1]).toEqual(
      modelTurn([
        ['gh', { title: 'x' }],
        ['search_code', { q: 'y' }],
      ]),
    );
    expect(contents[2]).toEqual(
      responseTurn([
        ['gh', { output: 'ok' }],
        ['search_code', { output: [] }],
      ]),
    );
    // The agent's own request is never mutated.
    expect((body.contents as JsonObject[])[1]).toEqual(
      modelTurn([
        ['github/create_issue', { title: 'x' }],
        ['search_code', { q: 'y' }],
      ]),
    );
  });

  it('evaluates `when` on the history read from contents', () => {
    const bundle = bundleOf({
      rules: [
        {
          id: 'after-search',
          action: 'hide',
          match: { name: 'create_pull_request' },
          when: "history.calls.exists(c, c.name == 'search_code' && c.args.q == 'x')",
        },
      ],
    });
    const before = mediateGemini(bundle, geminiRequest(tools));
    expect(declarationNames(before.body)).toContain('create_pull_request');
    const after = mediateGemini(
      bundle,
      geminiRequest(tools, [], {
        contents: [
          { role: 'user', parts: [{ text: 'go' }] },
          modelTurn([['search_code', { q: 'x' }]]),
          responseTurn([['search_code', { output: 'found' }]]),
        ],
      }),
    );
    expect(declarationNames(after.body)).not.toContain('create_pull_request');
  });

  it('selects rules by provider: gemini', () => {
    const bundle = bundleOf({
      rules: [
        { id: 'only-gemini', action: 'hide', match: { name: 'search_code', provider: 'gemini' } },
      ],
    });
    expect(declarationNames(mediateGemini(bundle, geminiRequest(tools)).body)).not.toContain(
      'search_code',
    );
  });
});

describe('Gemini name rule', () => {
  it.each([
    ['search_code', true],
    ['_private', true],
    ['ns.tool:v2-beta', true],
    ['github/create_issue', false],
    ['9lives', false],
    ['-dash', false],
    ['a'.repeat(64), true],
    ['a'.repeat(65), false],
    ['', false],
  ])('%s is legal: %s', (name, legal) => {
    expect(GEMINI_NAME_RULE.legal.test(name)).toBe(legal);
  });

  it('gives every name a legal, unique, deterministic alias', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 80 }), { maxLength: 12 }), (names) => {
        const aliases = assignProviderNames(names, GEMINI_NAME_RULE);
        expect(aliases.every((a) => GEMINI_NAME_RULE.legal.test(a))).toBe(true);
        // Distinct names never share an alias; a legal name keeps itself.
        const seen = new Map<string, string>();
        aliases.forEach((alias, i) => {
          const name = names[i] as string;
          if (GEMINI_NAME_RULE.legal.test(name)) expect(alias).toBe(name);
          const owner = seen.get(alias);
          if (owner !== undefined) expect(owner).toBe(name);
          seen.set(alias, name);
        });
        expect(assignProviderNames([...names], GEMINI_NAME_RULE)).toEqual(aliases);
      }),
    );
  });

  it('keeps dots and colons Gemini allows, where OpenAI’s rule would alias them', () => {
    expect(assignProviderNames(['ns.tool:v1', '1st'], GEMINI_NAME_RULE)).toEqual([
      'ns.tool:v1',
      '_1st',
    ]);
    expect(assignProviderNames(['ns.tool:v1'])).toEqual(['ns_tool_v1']);
  });
});
