import { describe, expect, it } from 'vitest';
import { hashLenient } from '../../hash/hash.ts';
import { jsonObjectUtf8, knownJsonText } from '../../json/json-text.ts';
import type { JsonObject } from '../../json/json-value.ts';
import { RequestParser } from '../../json/request-parser.ts';
import type { MediationPolicySpecInput } from '../../resources/mediation-policy.ts';
import { mediateRequest } from '../mediate-request.ts';
import { REDACTED } from '../redact.ts';
import { bundleOf } from '../test-fixtures.ts';
import { fn, mediate, request, toolNames } from './responses-test-fixtures.ts';

const HIDE_PR: MediationPolicySpecInput = {
  rules: [{ id: 'hide-pr', action: 'hide', match: { name: 'create_pull_request' } }],
};

describe('openai-responses: hide', () => {
  it('removes a function tool and records it hidden', () => {
    const result = mediate(HIDE_PR, request([fn('create_pull_request'), fn('search')]));
    expect(toolNames(result.body)).toEqual(['search']);
    expect(result.mediation?.applied_rules[0]).toMatchObject({
      id: 'hide-pr',
      action: 'hide',
      matched_tools: ['create_pull_request'],
    });
    expect(result.tools[0]).toMatchObject({ name: 'create_pull_request', policy_state: 'hidden' });
  });

  it('drops a tool_choice naming the hidden tool, keeps one naming a visible tool', () => {
    const tools = [fn('create_pull_request'), fn('search')];
    const hidden = { type: 'function', name: 'create_pull_request' };
    expect(mediate(HIDE_PR, request(tools, { tool_choice: hidden })).body).not.toHaveProperty(
      'tool_choice',
    );
    const visible = { type: 'function', name: 'search' };
    expect(mediate(HIDE_PR, request(tools, { tool_choice: visible })).body.tool_choice).toEqual(
      visible,
    );
  });

  it('filters allowed_tools to what is offered, and drops it when nothing it names is', () => {
    const tools = [fn('create_pull_request'), fn('search'), { type: 'web_search' }];
    const choice = (refs: JsonObject[]) => ({
      type: 'allowed_tools',
      mode: 'required',
      tools: refs,
    });
    const some = mediate(
      HIDE_PR,
      request(tools, {
        tool_choice: choice([
          { type: 'function', name: 'create_pull_request' },
          { type: 'function', name: 'search' },
          { type: 'web_search' },
          { type: 'file_search' },
        ]),
      }),
    ).body;
    expect(some.tool_choice).toEqual(
      choice([{ type: 'function', name: 'search' }, { type: 'web_search' }]),
    );
    const none = mediate(
      HIDE_PR,
      request(tools, { tool_choice: choice([{ type: 'function', name: 'create_pull_request' }]) }),
    ).body;
    expect(none).not.toHaveProperty('tool_choice');
  });

  it('drops tools, tool_choice and parallel_tool_calls when no tool remains', () => {
    const out = mediate(
      HIDE_PR,
      request([fn('create_pull_request')], { tool_choice: 'required', parallel_tool_calls: true }),
    ).body;
    expect(out).not.toHaveProperty('tools');
    expect(out).not.toHaveProperty('tool_choice');
    expect(out).not.toHaveProperty('parallel_tool_calls');
    expect(out.input).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('withholds a hosted tool, its forced tool_choice and its allowed_tools reference', () => {
    const spec = {
      rules: [{ id: 'no-web', action: 'hide' as const, match: { name: 'web_search' } }],
    };
    const tools = [fn('search'), { type: 'web_search_preview', search_context_size: 'low' }];
    const forced = mediate(spec, request(tools, { tool_choice: { type: 'web_search_preview' } }));
    expect(toolNames(forced.body)).toEqual(['search']);
    expect(forced.body).not.toHaveProperty('tool_choice');
    expect(forced.tools[1]).toMatchObject({
      name: 'web_search',
      type: 'web_search_preview',
      declared_by: 'provider',
      executed_by: 'provider',
      capability: 'wardwright.web_search.v1',
      policy_state: 'hidden',
      visible_to_provider: false,
    });
    // Every web search variant is matched by the one name.
    for (const type of ['web_search', 'web_search_2025_08_26', 'web_search_preview_2025_03_11']) {
      expect(toolNames(mediate(spec, request([{ type }])).body)).toEqual([]);
    }
  });

  it('hides a remote MCP server by its server_label and a forced choice of it', () => {
    const spec = { rules: [{ id: 'no-gh', action: 'hide' as const, match: { name: 'github' } }] };
    const tools = [
      fn('search'),
      { type: 'mcp', server_label: 'github', server_url: 'https://mcp.example.com/gh' },
      { type: 'mcp', server_label: 'docs', server_url: 'https://mcp.example.com/docs' },
    ];
    const result = mediate(
      spec,
      request(tools, { tool_choice: { type: 'mcp', server_label: 'github', name: 'x' } }),
    );
    expect(result.body.tools).toEqual([tools[0], tools[2]]);
    expect(result.body).not.toHaveProperty('tool_choice');
    expect(result.tools[1]).toMatchObject({
      name: 'github',
      type: 'mcp',
      declared_by: 'mcp',
      executed_by: 'remote_mcp',
      capability: 'wardwright.mcp_tool.v1',
      policy_state: 'hidden',
    });
  });
});

describe('openai-responses: augment, replace, rename', () => {
  it('augments a flat function tool, keeping strict and the agent’s fields', () => {
    const out = mediate(
      {
        rules: [
          {
            id: 'scope',
            action: 'augment',
            match: { name: 'search' },
            description_append: 'Only acme repos.',
            parameters: { required: ['q'] },
          },
        ],
      },
      request([fn('search')]),
    ).body;
    expect(out.tools).toEqual([
      fn('search', {
        description: 'search tool\n\nOnly acme repos.',
        parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      }),
    ]);
  });

  it('replaces a tool with the trusted declaration, flat and not strict', () => {
    const result = mediate(
      {
        rules: [
          {
            id: 'vetted',
            action: 'replace',
            match: { name: 'fetch' },
            tool: { name: 'fetch', description: 'Vetted fetch' },
          },
        ],
      },
      request([fn('fetch')]),
    );
    expect(result.body.tools).toEqual([
      {
        type: 'function',
        strict: false,
        name: 'fetch',
        description: 'Vetted fetch',
        parameters: { type: 'object', properties: {} },
      },
    ]);
    expect(result.tools[0]?.policy_state).toBe('replaced');
  });

  it('replaces a typed tool with a function tool the model calls by name', () => {
    const result = mediate(
      {
        rules: [
          {
            id: 'own-search',
            action: 'replace',
            match: { name: 'web_search' },
            tool: { name: 'web_search', description: 'Search our index' },
          },
        ],
      },
      request([{ type: 'web_search' }], { tool_choice: { type: 'function', name: 'web_search' } }),
    );
    expect(toolNames(result.body)).toEqual(['web_search']);
    expect((result.body.tools as JsonObject[])[0]?.type).toBe('function');
    expect(result.body.tool_choice).toEqual({ type: 'function', name: 'web_search' });
    expect(result.response.decideCall('c', 'web_search', '{}').policy_state).toBe('allowed');
  });

  it('renames for the provider, in tools, tool_choice, allowed_tools and input history', () => {
    const body = request([fn('github/create_issue'), fn('search')], {
      tool_choice: { type: 'function', name: 'github/create_issue' },
      input: [
        { role: 'user', content: 'file it' },
        {
          type: 'function_call',
          call_id: 'call_1',
          name: 'github/create_issue',
          arguments: '{"q":"x"}',
        },
        { type: 'function_call_output', call_id: 'call_1', output: 'filed' },
      ],
    });
    const spec = {
      rules: [
        {
          id: 'gh',
          action: 'rename' as const,
          match: { name: 'github/create_issue' },
          alias: 'gh_issue',
        },
      ],
    };
    const result = mediate(spec, body);
    expect(toolNames(result.body)).toEqual(['gh_issue', 'search']);
    expect(result.body.tool_choice).toEqual({ type: 'function', name: 'gh_issue' });
    expect((result.body.input as JsonObject[])[1]).toMatchObject({ name: 'gh_issue' });
    // The agent's own request is never mutated.
    expect((body.input as JsonObject[])[1]).toMatchObject({ name: 'github/create_issue' });
    const call = result.response.decideCall('call_2', 'gh_issue', '{"q":"y"}');
    expect(call).toMatchObject({
      name: 'github/create_issue',
      provider_name: 'gh_issue',
      policy_state: 'allowed',
    });
  });

  it('gives a provider-illegal name a deterministic legal alias', () => {
    const result = mediate({ rules: [] }, request([fn('github/create_issue')]));
    expect(toolNames(result.body)).toEqual(['github_create_issue']);
    expect(result.response.decideCall('c', 'github_create_issue', '{}').name).toBe(
      'github/create_issue',
    );
  });
});

describe('openai-responses: the request as received', () => {
  it('forwards an unchanged request as the same object', () => {
    const body = request([fn('search'), { type: 'web_search' }]);
    const result = mediate(HIDE_PR, body);
    expect(result.changed).toBe(false);
    expect(result.body).toBe(body);
    expect(result.mediation).toBeUndefined();
  });

  it('never hashes or stores an MCP tool’s credentials, yet sends them to the provider', () => {
    const mcp = {
      type: 'mcp',
      server_label: 'github',
      server_url: 'https://mcp.example.com/sse?token=sekr3t-token-value',
      authorization: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      headers: { 'X-Api-Key': 'k-123456789' },
      require_approval: 'never',
    };
    const result = mediate(HIDE_PR, request([fn('create_pull_request'), mcp]));
    expect(result.body.tools).toEqual([mcp]);
    const stored = JSON.stringify([...result.schemas.values()]);
    expect(stored).not.toMatch(/ghp_|k-123456789|sekr3t/);
    expect(stored).toContain(REDACTED);
    const record = result.tools[1];
    expect(record?.schema_hash).toBe(
      hashLenient({
        ...mcp,
        server_url: 'https://mcp.example.com/sse?token=[REDACTED]',
        authorization: REDACTED,
        headers: { 'X-Api-Key': REDACTED },
      }),
    );
  });

  it('treats agent-run typed tools as callable by their name', () => {
    const result = mediate(
      { rules: [{ id: 'no-shell', action: 'hide', match: { name: 'local_shell' } }] },
      request([
        {
          type: 'computer_use_preview',
          display_width: 1024,
          display_height: 768,
          environment: 'browser',
        },
        { type: 'local_shell' },
      ]),
    );
    expect(result.tools.map((t) => [t.name, t.executed_by, t.policy_state])).toEqual([
      ['computer', 'agent', 'allowed'],
      ['local_shell', 'agent', 'hidden'],
    ]);
    // Written back with the function tools: the hidden one is gone.
    expect(toolNames(result.body)).toEqual(['computer_use_preview']);
    expect(result.response.decideCall('c1', 'computer', { type: 'click' }).policy_state).toBe(
      'allowed',
    );
    expect(result.response.decideCall('c2', 'local_shell', {}).reason).toBe('hidden');
  });

  it('reads a hosted shell as provider code execution, a local one as the agent’s', () => {
    const hosted = mediate(
      { rules: [] },
      request([{ type: 'shell', environment: { type: 'container_auto' } }]),
    );
    expect(hosted.tools[0]).toMatchObject({
      name: 'shell',
      executed_by: 'provider',
      capability: 'wardwright.code_exec.v1',
    });
    const local = mediate({ rules: [] }, request([{ type: 'shell' }]));
    expect(local.tools[0]).toMatchObject({ name: 'shell', executed_by: 'agent' });
  });
});

describe('openai-responses: an agent resending its tools', () => {
  it('gets the same provider tools, serialized once, turn after turn', () => {
    const parser = new RequestParser();
    const bundle = bundleOf(HIDE_PR);
    const text = JSON.stringify(
      request([
        fn('create_pull_request'),
        fn('search'),
        { type: 'web_search' },
        { type: 'mcp', server_label: 'docs', server_url: 'https://x' },
      ]),
    );
    const turn = () =>
      mediateRequest(bundle, { surface: 'openai-responses', body: parser.parse(text) }).body;
    const [first, second, third] = [turn(), turn(), turn()];
    expect(toolNames(first)).toEqual(['search', 'web_search', 'mcp']);
    expect(third.tools).toBe(second.tools);
    expect(knownJsonText(third.tools)).toBe(JSON.stringify(third.tools));
    expect(Buffer.concat(jsonObjectUtf8(third)).toString()).toBe(JSON.stringify(first));
  });
});
