import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.ts';
import type { JsonObject } from '../json/json-value.ts';
import { compileBundle } from './compile-bundle.ts';
import { mediateRequest } from './mediate-request.ts';
import {
  anthropicRequest,
  anthropicTool,
  bundleOf,
  openAIRequest,
  openAITool,
  openAIToolNames,
} from './test-fixtures.ts';

const openai = (bundle: ReturnType<typeof bundleOf>, body: JsonObject, extra = {}) =>
  mediateRequest(bundle, { surface: 'openai-chat', body, ...extra });
const anthropic = (bundle: ReturnType<typeof bundleOf>, body: JsonObject) =>
  mediateRequest(bundle, { surface: 'anthropic-messages', body });

describe('hide', () => {
  const bundle = bundleOf({
    rules: [{ id: 'hide-pr-creation', action: 'hide', match: { name: 'create_pull_request' } }],
  });

  it('removes the tool and records the seed-format block', () => {
    const body = openAIRequest([openAITool('create_pull_request'), openAITool('search')]);
    const result = openai(bundle, body);
    expect(openAIToolNames(result.body)).toEqual(['search']);
    expect(result.mediation?.schema).toBe('wardwright.tool_mediation.v1');
    expect(result.mediation?.mode).toBe('patch');
    expect(result.mediation?.applied_rules).toEqual([
      {
        id: 'hide-pr-creation',
        action: 'hide',
        matched_tools: ['create_pull_request'],
        policy: 'policy-0',
      },
    ]);
    expect(result.mediation?.original_tools.map((t) => t.name)).toEqual([
      'create_pull_request',
      'search',
    ]);
    expect(result.mediation?.provider_visible_tools.map((t) => t.name)).toEqual(['search']);
    expect(result.tools[0]).toMatchObject({
      name: 'create_pull_request',
      policy_state: 'hidden',
      visible_to_provider: false,
    });
  });

  it.each([
    ['auto', 'auto'],
    ['required', 'required'],
  ])('keeps tool_choice %s while a tool remains', (choice, expected) => {
    const body = openAIRequest([openAITool('create_pull_request'), openAITool('search')], {
      tool_choice: choice,
    });
    expect(openai(bundle, body).body.tool_choice).toBe(expected);
  });

  it('drops tools, tool_choice and parallel_tool_calls when no tool remains (never orphaned)', () => {
    const body = openAIRequest([openAITool('create_pull_request')], {
      tool_choice: 'auto',
      parallel_tool_calls: true,
    });
    const out = openai(bundle, body).body;
    expect(out).not.toHaveProperty('tools');
    expect(out).not.toHaveProperty('tool_choice');
    expect(out).not.toHaveProperty('parallel_tool_calls');
    expect(out.messages).toEqual(body.messages);
  });

  it('drops a tool_choice that names the hidden tool', () => {
    const body = openAIRequest([openAITool('create_pull_request'), openAITool('search')], {
      tool_choice: { type: 'function', function: { name: 'create_pull_request' } },
    });
    const out = openai(bundle, body).body;
    expect(out).not.toHaveProperty('tool_choice');
    expect(openAIToolNames(out)).toEqual(['search']);
  });

  it('filters allowed_tools down to the visible ones', () => {
    const body = openAIRequest([openAITool('create_pull_request'), openAITool('search')], {
      tool_choice: {
        type: 'allowed_tools',
        allowed_tools: {
          mode: 'auto',
          tools: [
            { type: 'function', function: { name: 'create_pull_request' } },
            { type: 'function', function: { name: 'search' } },
          ],
        },
      },
    });
    expect(openai(bundle, body).body.tool_choice).toEqual({
      type: 'allowed_tools',
      allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'search' } }] },
    });
  });

  it('blocks a later call to the hidden tool on the response side', () => {
    const result = openai(bundle, openAIRequest([openAITool('create_pull_request')]));
    expect(result.response.decideCall('call_1', 'create_pull_request', '{}')).toMatchObject({
      name: 'create_pull_request',
      policy_state: 'blocked',
      reason: 'hidden',
    });
    expect(result.response.decideCall('call_2', 'never_declared', '{}')).toMatchObject({
      policy_state: 'blocked',
      reason: 'not_declared',
    });
  });

  it('hides an Anthropic tool and drops a {type: tool} choice naming it', () => {
    const body = anthropicRequest([anthropicTool('create_pull_request'), anthropicTool('search')], {
      tool_choice: { type: 'tool', name: 'create_pull_request' },
    });
    const out = anthropic(bundle, body).body;
    expect((out.tools as JsonObject[]).map((t) => t.name)).toEqual(['search']);
    expect(out).not.toHaveProperty('tool_choice');
  });
});

describe('augment', () => {
  it('appends to the description and tightens parameters, keeping name and other fields', () => {
    const bundle = bundleOf({
      rules: [
        {
          id: 'scope',
          action: 'augment',
          match: { name: 'search' },
          description_append: 'Only the acme org.',
          parameters: {
            additionalProperties: false,
            required: ['q'],
            properties: { q: { minLength: 3 } },
          },
        },
      ],
    });
    const tool = openAITool('search', {
      strict: false,
      parameters: { type: 'object', required: ['repo'], properties: { q: { type: 'string' } } },
    });
    const result = openai(bundle, openAIRequest([tool]));
    const fn = ((result.body.tools as JsonObject[])[0] as JsonObject).function as JsonObject;
    expect(fn).toEqual({
      name: 'search',
      description: 'search tool\n\nOnly the acme org.',
      strict: false,
      parameters: {
        type: 'object',
        required: ['repo', 'q'],
        properties: { q: { type: 'string', minLength: 3 } },
        additionalProperties: false,
      },
    });
    expect(result.tools[0]?.policy_state).toBe('wrapped');
    const [original] = result.mediation?.original_tools ?? [];
    const [visible] = result.mediation?.provider_visible_tools ?? [];
    expect(original?.schema_hash).not.toBe(visible?.schema_hash);
    expect(result.schemas.get(visible?.schema_hash ?? '')).toEqual(
      (result.body.tools as JsonObject[])[0],
    );
  });

  it('sets a description on a tool that had none', () => {
    const bundle = bundleOf({
      rules: [{ id: 'a', action: 'augment', match: { name: 'x' }, description_append: 'Careful.' }],
    });
    const body = anthropicRequest([{ name: 'x', input_schema: { type: 'object' } }]);
    expect((anthropic(bundle, body).body.tools as JsonObject[])[0]).toEqual({
      name: 'x',
      description: 'Careful.',
      input_schema: { type: 'object' },
    });
  });
});

describe('replace', () => {
  const replacement = {
    type: 'function' as const,
    function: {
      name: 'approved_web_search',
      description: 'Approved search.',
      parameters: { type: 'object', properties: { query: { type: 'string' } } },
    },
  };

  it('puts the trusted declaration in place and maps calls back to the agent name', () => {
    const bundle = bundleOf({
      rules: [{ id: 'r', action: 'replace', match: { name: 'web_search' }, tool: replacement }],
    });
    const result = openai(bundle, openAIRequest([openAITool('web_search'), openAITool('other')]));
    expect(result.body.tools).toEqual([replacement, openAITool('other')]);
    expect(result.tools[0]).toMatchObject({
      name: 'web_search',
      provider_name: 'approved_web_search',
      policy_state: 'replaced',
    });
    expect(result.response.decideCall('c', 'approved_web_search', '{"query":"x"}')).toMatchObject({
      name: 'web_search',
      provider_name: 'approved_web_search',
      policy_state: 'allowed',
    });
  });

  it('writes the replacement in the Anthropic format (input_schema)', () => {
    const bundle = bundleOf({
      rules: [{ id: 'r', action: 'replace', match: { name: 'web_search' }, tool: replacement }],
    });
    const result = anthropic(bundle, anthropicRequest([anthropicTool('web_search')]));
    expect(result.body.tools).toEqual([
      {
        name: 'approved_web_search',
        description: 'Approved search.',
        input_schema: { type: 'object', properties: { query: { type: 'string' } } },
      },
    ]);
  });

  it('can replace a provider server tool with a function tool', () => {
    const bundle = bundleOf({
      rules: [
        {
          id: 'r',
          action: 'replace',
          match: { name: 'web_search' },
          tool: { name: 'safe_search' },
        },
      ],
    });
    const body = anthropicRequest([{ type: 'web_search_20250305', name: 'web_search' }]);
    const result = anthropic(bundle, body);
    expect(result.body.tools).toEqual([
      { name: 'safe_search', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(result.tools[0]).toMatchObject({ type: 'function', policy_state: 'replaced' });
  });

  // Seed edge case 2: a replacement may introduce any schema, but the final request is
  // deduplicated by name.
  it('deduplicates by name when a replacement collides with another tool', () => {
    const bundle = bundleOf({
      rules: [{ id: 'r', action: 'replace', match: { name: 'a' }, tool: { name: 'b' } }],
    });
    const result = openai(bundle, openAIRequest([openAITool('a'), openAITool('b')]));
    expect(openAIToolNames(result.body)).toEqual(['b']);
    expect(result.body.tools).toEqual(
      [{ type: 'function', function: { name: 'b', parameters: undefined } }].map(() => ({
        type: 'function',
        function: { name: 'b' },
      })),
    );
  });

  // Seed edge case 3: gateway-hosted tools stay first-class when a replacement collides.
  it('keeps the gateway-hosted tool when a replacement takes its name', () => {
    const hosted = {
      type: 'function' as const,
      function: { name: 'wardwright_web_search', description: 'Hosted by the gateway.' },
    };
    const bundle = bundleOf({
      rules: [
        {
          id: 'r',
          action: 'replace',
          match: { name: 'web_search' },
          tool: { name: 'wardwright_web_search', description: 'Agent-side replacement.' },
        },
      ],
    });
    const result = openai(bundle, openAIRequest([openAITool('web_search')]), {
      hostedTools: [hosted],
    });
    expect(result.body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'wardwright_web_search', description: 'Hosted by the gateway.' },
      },
    ]);
    const visible = result.mediation?.provider_visible_tools ?? [];
    expect(visible).toHaveLength(1);
    expect(visible[0]).toMatchObject({ declared_by: 'wardwright', name: 'wardwright_web_search' });
    expect(result.tools.find((t) => t.declared_by === 'wardwright')).toMatchObject({
      executed_by: 'wardwright',
      fidelity: 'emulated',
      visible_to_provider: true,
    });
    expect(result.tools.find((t) => t.name === 'web_search')?.visible_to_provider).toBe(false);
  });
});

describe('rename and automatic aliases', () => {
  it('renames past calls to gateway-hosted tools in the history too (two hosted tools swapped)', () => {
    const bundle = bundleOf(
      {
        name: 'alpha',
        generation: 1,
        spec: {
          rules: [
            { id: 'r0', action: 'rename', match: { name: 'search' }, alias: 'create_pull_request' },
          ],
        },
      },
      {
        name: 'gamma',
        generation: 1,
        spec: {
          rules: [{ id: 'r0', action: 'rename', match: { name: '/^create_/' }, alias: 'search' }],
        },
      },
    );
    const body = {
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'search', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
      ],
      tools: [],
    };
    const result = mediateRequest(bundle, {
      surface: 'openai-chat',
      body,
      hostedTools: [
        {
          type: 'function',
          function: { name: 'create_pull_request', parameters: { type: 'object' } },
        },
        { type: 'function', function: { name: 'search' } },
      ] as never,
    });
    const messages = result.body.messages as Array<{
      tool_calls?: Array<{ function: { name: string } }>;
    }>;
    const past = messages[1]?.tool_calls?.[0]?.function.name as string;
    expect(past).toBe('create_pull_request');
    expect(result.response.decideCall('h', past, '{}').name).toBe('search');
  });

  it('renames for the provider, renames history and tool_choice, maps calls back', () => {
    const bundle = bundleOf({
      rules: [
        { id: 'gh', action: 'rename', match: { name: 'github/create_issue' }, alias: 'gh_issue' },
      ],
    });
    const body = openAIRequest([openAITool('github/create_issue')], {
      tool_choice: { type: 'function', function: { name: 'github/create_issue' } },
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'c0',
              type: 'function',
              function: { name: 'github/create_issue', arguments: '{}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c0', content: 'done' },
      ],
    });
    const result = openai(bundle, body);
    expect(openAIToolNames(result.body)).toEqual(['gh_issue']);
    expect(result.body.tool_choice).toEqual({ type: 'function', function: { name: 'gh_issue' } });
    const history = result.body.messages as JsonObject[];
    expect(history[1]?.tool_calls).toMatchObject([{ function: { name: 'gh_issue' } }]);
    expect(result.response.decideCall('c1', 'gh_issue', '{}').name).toBe('github/create_issue');
    expect(body.messages).toHaveLength(3); // input untouched
    expect((body.messages as JsonObject[])[1]?.tool_calls).toMatchObject([
      { function: { name: 'github/create_issue' } },
    ]);
  });

  it('renames Anthropic tool_use blocks in history', () => {
    const bundle = bundleOf({
      rules: [{ id: 'gh', action: 'rename', match: { name: 'search' }, alias: 'find' }],
    });
    const body = anthropicRequest([anthropicTool('search')], {
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'search', input: {} }] },
      ],
    });
    const out = anthropic(bundle, body).body;
    expect((out.messages as JsonObject[])[1]?.content).toMatchObject([{ name: 'find' }]);
  });

  it.each([
    [['github/create_issue'], ['github_create_issue']],
    [
      ['a b', 'a_b'],
      ['a_b_', 'a_b'],
    ],
    [['x'.repeat(70)], ['x'.repeat(55)]],
    [
      ['mcp__jira__search', 'jira.search'],
      ['mcp__jira__search', 'jira_search'],
    ],
  ])('gives provider-illegal names %j deterministic legal aliases', (names, prefixes) => {
    const result = openai(bundleOf({ rules: [] }), openAIRequest(names.map((n) => openAITool(n))));
    const out = openAIToolNames(result.body);
    out.forEach((name, i) => {
      expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(name.startsWith(prefixes[i] as string)).toBe(true);
    });
    expect(new Set(out).size).toBe(out.length);
    expect(
      openAIToolNames(
        openai(bundleOf({ rules: [] }), openAIRequest(names.map((n) => openAITool(n)))).body,
      ),
    ).toEqual(out);
    names.forEach((name, i) => {
      expect(result.response.decideCall('c', out[i] as string, '{}').name).toBe(name);
    });
  });
});

describe('deduplication', () => {
  it('keeps the first of two agent tools with the same name', () => {
    const first = openAITool('dup', { description: 'first' });
    const result = openai(bundleOf({ rules: [] }), openAIRequest([first, openAITool('dup')]));
    expect(result.body.tools).toEqual([first]);
    expect(result.mediation?.applied_rules).toEqual([]);
    expect(result.mediation?.provider_visible_tools).toHaveLength(1);
  });
});

describe('no-op rules (seed edge case 1)', () => {
  it.each([
    ['hide of a tool not in the request', { id: 'h', action: 'hide', match: { name: 'absent' } }],
    [
      'augment that changes nothing',
      { id: 'a', action: 'augment', match: { name: 'search' }, parameters: { type: 'object' } },
    ],
    [
      'replace with the identical declaration',
      { id: 'r', action: 'replace', match: { name: 'search' }, tool: openAITool('search') },
    ],
    [
      'rename to its own name',
      { id: 'n', action: 'rename', match: { name: 'search' }, alias: 'search' },
    ],
  ])('%s creates no metadata and leaves the request as is', (_label, rule) => {
    const body = openAIRequest([openAITool('search')]);
    const result = openai(bundleOf({ rules: [rule as never] }), body);
    expect(result.mediation).toBeUndefined();
    expect(result.changed).toBe(false);
    expect(result.body).toBe(body);
    expect(result.tools[0]?.policy_state).toBe('allowed');
  });
});

describe('observe mode', () => {
  it('never changes the request but records what patch would have done', () => {
    const bundle = bundleOf({
      mode: 'observe',
      rules: [{ id: 'would-hide', action: 'hide', match: { name: 'create_pull_request' } }],
    });
    const body = openAIRequest([openAITool('create_pull_request')], { tool_choice: 'auto' });
    const result = openai(bundle, body);
    expect(result.body).toBe(body);
    expect(result.mediation).toMatchObject({
      mode: 'observe',
      applied_rules: [],
      observed_rules: [
        { id: 'would-hide', action: 'hide', matched_tools: ['create_pull_request'] },
      ],
    });
    expect(result.mediation?.provider_visible_tools).toEqual(result.mediation?.original_tools);
    expect(result.response.decideCall('c', 'create_pull_request', '{}').policy_state).toBe(
      'allowed',
    );
  });

  it('records nothing when observed rules cancel out (rename, then rename back)', () => {
    const bundle = bundleOf({
      mode: 'observe',
      rules: [
        { id: 'away', action: 'rename', match: { name: 'search' }, alias: 'find' },
        { id: 'back', action: 'rename', match: { name: 'search' }, alias: 'search' },
      ],
    });
    expect(openai(bundle, openAIRequest([openAITool('search')])).mediation).toBeUndefined();
  });

  it('records nothing when the observed rules would change nothing', () => {
    const bundle = bundleOf({
      mode: 'observe',
      rules: [{ id: 'h', action: 'hide', match: { name: 'nope' } }],
    });
    expect(openai(bundle, openAIRequest([openAITool('search')])).mediation).toBeUndefined();
  });
});

describe('several policies', () => {
  it('merge by priority (higher first), then name, and the order reaches the receipt', () => {
    const bundle = compileBundle({
      policies: [
        {
          name: 'zeta',
          generation: 3,
          spec: {
            priority: 10,
            rules: [{ id: 'z', action: 'rename', match: { name: 't' }, alias: 'from_zeta' }],
          },
        },
        {
          name: 'alpha',
          generation: 1,
          spec: {
            priority: 10,
            rules: [{ id: 'a', action: 'rename', match: { name: 't' }, alias: 'from_alpha' }],
          },
        },
        {
          name: 'top',
          generation: 2,
          spec: {
            priority: 100,
            rules: [
              { id: 'd', action: 'augment', match: { name: 't' }, description_append: 'top' },
            ],
          },
        },
      ],
    });
    expect(bundle.policies.map((p) => p.name)).toEqual(['top', 'alpha', 'zeta']);
    const result = openai(bundle, openAIRequest([openAITool('t')]));
    // zeta renames last, so its alias wins; every rule that changed something is recorded.
    expect(openAIToolNames(result.body)).toEqual(['from_zeta']);
    expect(result.mediation?.applied_rules.map((r) => `${r.policy}/${r.id}`)).toEqual([
      'top/d',
      'alpha/a',
      'zeta/z',
    ]);
    expect(result.policies.map((p) => [p.name, p.generation])).toEqual([
      ['top', 2],
      ['alpha', 1],
      ['zeta', 3],
    ]);
  });

  it('applies patch policies and observes observe policies in one request', () => {
    const bundle = compileBundle({
      policies: [
        {
          name: 'enforce',
          generation: 1,
          spec: { rules: [{ id: 'h', action: 'hide', match: { name: 'a' } }] },
        },
        {
          name: 'watch',
          generation: 1,
          spec: { mode: 'observe', rules: [{ id: 'w', action: 'hide', match: { name: 'b' } }] },
        },
      ],
    });
    const result = openai(bundle, openAIRequest([openAITool('a'), openAITool('b')]));
    expect(openAIToolNames(result.body)).toEqual(['b']);
    expect(result.mediation?.mode).toBe('patch');
    expect(result.mediation?.applied_rules.map((r) => r.id)).toEqual(['h']);
    expect(result.mediation?.observed_rules?.map((r) => r.id)).toEqual(['w']);
  });
});

describe('match selectors', () => {
  const hideWhen = (match: JsonObject) =>
    bundleOf({ rules: [{ id: 'h', action: 'hide', match: match as never }] });
  const tools = [
    openAITool('create_pull_request'),
    openAITool('github/list'),
    openAITool('search_code'),
  ];

  it.each([
    [{ name: 'create_*' }, ['github_list', 'search_code']],
    [{ name: '/^(search|create)_/' }, ['github_list']],
    [{ name: 'github/*' }, ['create_pull_request', 'search_code']],
    [{ declared_by: 'mcp' }, ['create_pull_request', 'search_code']],
    [{ declared_by: ['agent', 'mcp'] }, []],
    [{ name: '*', model: 'gpt-4o*' }, []],
    [{ name: '*', model: 'claude-*' }, ['create_pull_request', 'github_list', 'search_code']],
    [
      { name: '*', provider: 'anthropic-messages' },
      ['create_pull_request', 'github_list', 'search_code'],
    ],
    [{ name: '*', identity: { human: 'alice' } }, []],
    [
      { name: '*', identity: { human: 'bob' } },
      ['create_pull_request', 'github_list', 'search_code'],
    ],
    [
      { name: '*', identity: { service: 'ci-*' } },
      ['create_pull_request', 'github_list', 'search_code'],
    ],
  ])('%j leaves %j (alice proven)', (match, remaining) => {
    const identity = { human: 'alice', trusted: ['human', 'service'] as const };
    const result = openai(hideWhen(match), openAIRequest(tools), { identity });
    expect(openAIToolNames(result.body)).toEqual(remaining);
  });
});

describe('per-tool model', () => {
  it('classifies Anthropic server and client tools, MCP connectors and meta-tools', () => {
    const body = anthropicRequest(
      [
        anthropicTool('search'),
        anthropicTool('mcp_tool'),
        { type: 'web_search_20250305', name: 'web_search', max_uses: 2 },
        { type: 'code_execution_20250825', name: 'code_execution' },
        {
          type: 'computer_20250124',
          name: 'computer',
          display_width_px: 1024,
          display_height_px: 768,
        },
        { type: 'bash_20250124', name: 'bash' },
        { type: 'some_future_tool_20990101', name: 'future' },
      ],
      { mcp_servers: [{ type: 'url', url: 'https://mcp.example.test/sse', name: 'tickets' }] },
    );
    const records = anthropic(bundleOf({ rules: [] }), body).tools;
    const byName = Object.fromEntries(records.map((r) => [r.name, r]));
    expect(byName.search).toMatchObject({
      declared_by: 'agent',
      executed_by: 'agent',
      fidelity: 'pass_through',
      policy_state: 'allowed',
    });
    expect(byName.mcp_tool).toMatchObject({ policy_state: 'deferred' });
    expect(byName.web_search).toMatchObject({
      type: 'web_search_20250305',
      declared_by: 'provider',
      executed_by: 'provider',
      capability: 'wardwright.web_search.v1',
      fidelity: 'normalized',
    });
    expect(byName.code_execution).toMatchObject({
      executed_by: 'provider',
      capability: 'wardwright.code_exec.v1',
    });
    expect(byName.computer).toMatchObject({
      executed_by: 'agent',
      capability: 'wardwright.computer_use.v1',
      fidelity: 'pass_through',
    });
    expect(byName.bash).toMatchObject({ executed_by: 'agent', fidelity: 'pass_through' });
    expect(byName.future).toMatchObject({
      executed_by: 'provider',
      fidelity: 'opaque',
      policy_state: 'opaque',
    });
    expect(byName.tickets).toMatchObject({
      type: 'mcp_server',
      declared_by: 'mcp',
      executed_by: 'remote_mcp',
      capability: 'wardwright.mcp_tool.v1',
      fidelity: 'provider_attested',
    });
  });

  it('treats OpenAI web_search_options as a provider-attested hosted tool that can be hidden', () => {
    const body = openAIRequest([openAITool('search')], {
      web_search_options: { search_context_size: 'low' },
    });
    const plain = openai(bundleOf({ rules: [] }), body);
    expect(plain.tools[1]).toMatchObject({
      name: 'web_search',
      type: 'web_search_options',
      executed_by: 'provider',
      fidelity: 'provider_attested',
    });
    const hidden = openai(
      bundleOf({
        rules: [
          { id: 'no-web', action: 'hide', match: { name: 'web_search', declared_by: 'provider' } },
        ],
      }),
      body,
    );
    expect(hidden.body).not.toHaveProperty('web_search_options');
    expect(openAIToolNames(hidden.body)).toEqual(['search']);
    expect(
      hidden.response.describeHostedEvent({
        providerType: 'url_citation',
        name: 'web_search',
        sources: ['https://a.test'],
      }).policy_state,
    ).toBe('blocked');
  });

  it('hides an Anthropic MCP connector server', () => {
    const body = anthropicRequest([anthropicTool('search')], {
      mcp_servers: [
        { type: 'url', url: 'https://a.test/sse', name: 'tickets' },
        { type: 'url', url: 'https://b.test/sse', name: 'wiki' },
      ],
    });
    const out = anthropic(
      bundleOf({
        rules: [{ id: 'h', action: 'hide', match: { name: 'tickets', declared_by: 'mcp' } }],
      }),
      body,
    ).body;
    expect(out.mcp_servers).toEqual([{ type: 'url', url: 'https://b.test/sse', name: 'wiki' }]);
  });
});

describe('meta-tool resolution on the response side', () => {
  it('decides on the real server/tool carried by mcp_tool before any policy decision', () => {
    const bundle = bundleOf({
      rules: [{ id: 'no-prs', action: 'hide', match: { name: 'github/create_pull_request' } }],
    });
    const result = openai(bundle, openAIRequest([openAITool('mcp_tool')]));
    const blocked = result.response.decideCall(
      'c1',
      'mcp_tool',
      JSON.stringify({ server: 'github', tool: 'create_pull_request', arguments: { title: 'x' } }),
    );
    expect(blocked).toMatchObject({
      policy_state: 'blocked',
      reason: 'rule:no-prs',
      resolved_tool: 'github/create_pull_request',
    });
    const allowed = result.response.decideCall(
      'c2',
      'mcp_tool',
      JSON.stringify({ server: 'github', tool: 'list_issues', arguments: {} }),
    );
    expect(allowed).toMatchObject({ policy_state: 'allowed', resolved_tool: 'github/list_issues' });
  });

  it('does not block in observe mode', () => {
    const bundle = bundleOf({
      mode: 'observe',
      rules: [{ id: 'w', action: 'hide', match: { name: 'create_pull_request' } }],
    });
    const result = openai(bundle, openAIRequest([openAITool('mcp_tool')]));
    expect(
      result.response.decideCall('c', 'mcp_tool', '{"server":"gh","tool":"create_pull_request"}')
        .policy_state,
    ).toBe('allowed');
  });

  it('honours a policy-declared meta-tool', () => {
    const bundle = bundleOf({
      metaTools: [{ name: 'bridge', serverField: 'srv', toolField: 'op' }],
      rules: [{ id: 'no-drop', action: 'hide', match: { name: 'db/drop_table' } }],
    });
    const result = openai(bundle, openAIRequest([openAITool('bridge')]));
    expect(
      result.response.decideCall('c', 'bridge', '{"srv":"db","op":"drop_table"}').policy_state,
    ).toBe('blocked');
  });
});

describe('response-side evidence', () => {
  it('hashes arguments canonically and redacts secrets before hashing', () => {
    const result = openai(
      bundleOf({ redact: ['auth.pin'], rules: [] }),
      openAIRequest([openAITool('login')]),
    );
    const a = result.response.decideCall(
      'c',
      'login',
      '{"user":"u","token":"secret-1","auth":{"pin":"1234"}}',
    );
    const b = result.response.decideCall(
      'c',
      'login',
      '{"auth":{"pin":"9999"},"token":"secret-2","user":"u"}',
    );
    expect(a.arguments_hash).toBe(b.arguments_hash);
    expect(a.action_id).toBe(b.action_id);
    expect(a.redacted_arguments).toEqual(['token', 'auth.pin']);
    expect(JSON.stringify(a)).not.toContain('secret-1');
  });

  it('never throws on hostile arguments', () => {
    const result = openai(bundleOf({ rules: [] }), openAIRequest([openAITool('t')]));
    for (const raw of ['{', '"\\ud800"', 'null', '[1,2', '', '{"a":"\\udfff"}']) {
      expect(result.response.decideCall('c', 't', raw).arguments_hash).toMatch(
        /^sha256:[0-9a-f]{64}$/,
      );
    }
  });
});

describe('invalid requests produce typed errors with field paths', () => {
  const bundle = bundleOf({ rules: [] });
  it.each([
    ['openai-chat', 'not an object', '(root)'],
    ['openai-chat', { messages: [] }, 'model'],
    ['openai-chat', { model: 'm', tools: {} }, 'tools'],
    ['openai-chat', { model: 'm', tools: [openAITool('a'), 7] }, 'tools[1]'],
    [
      'openai-chat',
      { model: 'm', tools: [{ type: 'function', function: { description: 'x' } }] },
      'tools[0].function.name',
    ],
    ['openai-chat', { model: 'm', tools: [{ type: 'retrieval' }] }, 'tools[0].type'],
    [
      'openai-chat',
      { model: 'm', tools: [openAITool('a', { description: '\ud800' })] },
      'tools[0]',
    ],
    [
      'openai-chat',
      { model: 'm', tools: [openAITool('a', { description: 'a\u0000b' })] },
      'tools[0].function.description',
    ],
    [
      'anthropic-messages',
      { model: 'm', tools: [{ name: 'a', input_schema: { properties: { 'k\u0000': {} } } }] },
      'tools[0].input_schema.properties.(key)',
    ],
    ['openai-chat', { model: 'm', web_search_options: 'yes' }, 'web_search_options'],
    ['anthropic-messages', { model: 'm', tools: [{ input_schema: {} }] }, 'tools[0].name'],
    ['anthropic-messages', { model: 'm', mcp_servers: [{ url: 'x' }] }, 'mcp_servers[0].name'],
  ] as const)('%s %j → %s', (surface, body, field) => {
    let caught: unknown;
    try {
      mediateRequest(bundle, { surface, body });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).causes.map((c) => c.field)).toContain(field);
  });

  it('names the failing policy field', () => {
    let caught: unknown;
    try {
      compileBundle({
        policies: [
          {
            name: 'p',
            generation: 1,
            spec: {
              rules: [
                { id: 'a', action: 'hide', match: { name: 'x' } },
                { id: 'b', action: 'hide', match: { name: 'y' } },
                { id: 'c', action: 'hide', match: { name: '/[unclosed/' } },
              ],
            },
          },
        ],
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).causes[0]?.field).toBe(
      'policies[0].spec.rules[2].match.name',
    );
  });
});

describe('determinism', () => {
  it('gives byte-identical output for the same input, with or without the hash cache', () => {
    const spec = {
      rules: [
        { id: 'h', action: 'hide' as const, match: { name: 'a' } },
        { id: 'r', action: 'rename' as const, match: { name: 'b' }, alias: 'bee' },
      ],
    };
    const body = openAIRequest([openAITool('a'), openAITool('b'), openAITool('c/d')]);
    const cold = compileBundle({
      policies: [{ name: 'p', generation: 1, spec }],
      memoSize: 0,
    });
    const warm = compileBundle({ policies: [{ name: 'p', generation: 1, spec }] });
    const runs = [cold, warm, warm].map((b) => {
      const r = openai(b, body);
      return JSON.stringify([r.body, r.mediation, r.tools]);
    });
    expect(new Set(runs).size).toBe(1);
  });
});

describe('regressions found by the property tests', () => {
  it('offers gateway-hosted tools even when no rule changes anything', () => {
    const result = openai(bundleOf({ rules: [] }), openAIRequest([openAITool('search')]), {
      hostedTools: [{ name: 'lookup' }],
    });
    expect(openAIToolNames(result.body)).toEqual(['search', 'lookup']);
    expect(result.changed).toBe(true);
  });

  it('moves a replaced request-level tool into tools and drops the native field', () => {
    const bundle = bundleOf({
      rules: [
        { id: 'r', action: 'replace', match: { name: 'web_search' }, tool: { name: 'search' } },
      ],
    });
    const body = { model: 'gpt-4o', messages: [], web_search_options: {}, tool_choice: 'auto' };
    const result = openai(bundle, body);
    expect(result.body).not.toHaveProperty('web_search_options');
    expect(openAIToolNames(result.body)).toEqual(['search']);
    expect(result.body.tool_choice).toBe('auto');
    expect(result.response.decideCall('c', 'search', '{}')).toMatchObject({
      name: 'web_search',
      policy_state: 'allowed',
    });
  });

  it('collapses duplicate illegal names instead of aliasing each copy', () => {
    const body = openAIRequest([
      openAITool('github/create_issue'),
      openAITool('github/create_issue'),
    ]);
    expect(openAIToolNames(openai(bundleOf({ rules: [] }), body).body)).toEqual([
      'github_create_issue',
    ]);
  });

  it('keeps a __proto__ key of an augment fragment as an own property', () => {
    const bundle = bundleOf({
      rules: [
        {
          id: 'a',
          action: 'augment',
          match: { name: 'search' },
          parameters: JSON.parse('{"properties":{"__proto__":{"type":"string"}}}'),
        },
      ],
    });
    const result = openai(bundle, openAIRequest([openAITool('search')]));
    const tool = (result.body.tools as JsonObject[])[0] as JsonObject;
    const props = ((tool.function as JsonObject).parameters as JsonObject).properties as JsonObject;
    expect(Object.hasOwn(props, '__proto__')).toBe(true);
    expect(Object.keys(props)).toEqual(['q', '__proto__']);
  });

  it('keeps an OpenAI declaration without `type` as the agent sent it', () => {
    const untyped = { function: { name: 'search', parameters: { type: 'object' } } };
    const bundle = bundleOf({
      rules: [
        { id: 'a', action: 'augment', match: { name: 'search' }, parameters: { type: 'object' } },
      ],
    });
    const result = openai(bundle, openAIRequest([untyped]));
    expect(result.mediation).toBeUndefined();
    expect(result.body.tools).toEqual([untyped]);
  });
});

describe('the per-bundle memo', () => {
  const spec = {
    rules: [
      {
        id: 'contractors',
        action: 'hide' as const,
        match: { name: 'deploy', identity: { human: 'contractor-*' } },
      },
      {
        id: 'scope',
        action: 'augment' as const,
        match: { name: 'search' },
        description_append: 'Scoped.',
      },
    ],
  };
  const body = () => openAIRequest([openAITool('deploy'), openAITool('search'), openAITool('a/b')]);
  const run = (bundle: ReturnType<typeof compileBundle>, human: string) => {
    const r = openai(bundle, body(), { identity: { human, trusted: ['human', 'service'] } });
    return JSON.stringify([r.body, r.mediation, r.tools, [...r.schemas]]);
  };

  it('gives the same results as no memo, per identity, in any order', () => {
    const cold = compileBundle({ policies: [{ name: 'p', generation: 1, spec }], memoSize: 0 });
    const warm = compileBundle({ policies: [{ name: 'p', generation: 1, spec }] });
    for (const human of ['contractor-1', 'alice', 'contractor-2', 'alice', 'contractor-1']) {
      expect(run(warm, human)).toBe(run(cold, human));
    }
    expect(run(warm, 'alice')).not.toBe(run(warm, 'contractor-1'));
  });

  it('neither freezes nor keeps the caller’s objects', () => {
    const bundle = compileBundle({ policies: [{ name: 'p', generation: 1, spec }] });
    const input = body();
    const result = openai(bundle, input, { identity: { human: 'alice' } });
    const tools = input.tools as JsonObject[];
    expect(Object.isFrozen(tools[0])).toBe(false);
    expect(Object.isFrozen((tools[0] as JsonObject).function)).toBe(false);
    expect((result.body.tools as JsonObject[]).some((t) => tools.includes(t))).toBe(false);
    expect(Object.isFrozen(result.mediation)).toBe(true);
  });
});
