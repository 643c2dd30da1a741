import { describe, expect, it } from 'vitest';
import { mediateRequest } from '../engine/mediate-request.ts';
import { bundleOf } from '../engine/test-fixtures.ts';
import { hashLenient } from '../hash/hash.ts';
import type { JsonObject, JsonValue } from '../json/json-value.ts';
import type { MediationPolicySpecInput } from '../resources/mediation-policy.ts';
import { enforceResponsesBody } from './openai-responses-response.ts';

const fn = (name: string): JsonObject => ({
  type: 'function',
  name,
  parameters: { type: 'object', properties: {} },
  strict: false,
});

/** The response side of a mediated Responses request with these tools under this policy. */
function contextFor(spec: MediationPolicySpecInput, tools: JsonValue[]) {
  const body = { model: 'gpt-4.1', input: 'go', tools };
  return mediateRequest(bundleOf(spec), { surface: 'openai-responses', body }).response;
}

const response = (output: JsonValue[], extra: JsonObject = {}): JsonObject => ({
  id: 'resp_1',
  object: 'response',
  status: 'completed',
  model: 'gpt-4.1',
  output,
  ...extra,
});

const message = (text: string, annotations: JsonValue[] = []): JsonObject => ({
  id: 'msg_1',
  type: 'message',
  status: 'completed',
  role: 'assistant',
  content: [{ type: 'output_text', text, annotations }],
});

const call = (name: string, callId: string, args = '{}'): JsonObject => ({
  id: `fc_${callId}`,
  type: 'function_call',
  status: 'completed',
  call_id: callId,
  name,
  arguments: args,
});

const TOOLS = [fn('search'), fn('create_pull_request'), fn('github/create_issue')];
const POLICY: MediationPolicySpecInput = {
  rules: [
    { id: 'hide-pr', action: 'hide', match: { name: 'create_pull_request' } },
    { id: 'gh', action: 'rename', match: { name: 'github/create_issue' }, alias: 'gh_issue' },
  ],
};

describe('enforceResponsesBody: calls the agent runs', () => {
  const ctx = contextFor(POLICY, TOOLS);

  it('renames allowed calls back and removes calls to hidden tools, with evidence for each', () => {
    const body = response([
      message('On it.'),
      call('gh_issue', 'call_a', '{"title":"x"}'),
      call('create_pull_request', 'call_b'),
      call('search', 'call_c', '{"q":"y"}'),
    ]);
    const { body: out, evidence } = enforceResponsesBody(body, ctx);
    expect((out as JsonObject).output).toEqual([
      message('On it.'),
      { ...call('gh_issue', 'call_a', '{"title":"x"}'), name: 'github/create_issue' },
      call('search', 'call_c', '{"q":"y"}'),
    ]);
    expect(evidence.tool_calls.map((c) => [c.id, c.name, c.policy_state, c.reason])).toEqual([
      ['call_a', 'github/create_issue', 'allowed', undefined],
      ['call_b', 'create_pull_request', 'blocked', 'hidden'],
      ['call_c', 'search', 'allowed', undefined],
    ]);
    expect(evidence.tool_calls[0]?.arguments_hash).toBe(hashLenient({ title: 'x' }));
    // Never mutated.
    expect((body.output as JsonObject[])[1]?.name).toBe('gh_issue');
  });

  it('blocks a call to a tool never declared, and a namespaced one', () => {
    const { body, evidence } = enforceResponsesBody(
      response([call('delete_repo', 'c1'), { ...call('search', 'c2'), namespace: 'tools' }]),
      ctx,
    );
    expect((body as JsonObject).output).toEqual([]);
    expect(evidence.tool_calls.map((c) => c.reason)).toEqual(['not_declared', 'not_declared']);
  });

  it('judges custom and typed calls (computer, local shell, apply_patch) by their tool', () => {
    const typed = contextFor(
      { rules: [{ id: 'no-patch', action: 'hide', match: { name: 'apply_patch' } }] },
      [
        { type: 'custom', name: 'sql' },
        {
          type: 'computer_use_preview',
          display_width: 800,
          display_height: 600,
          environment: 'linux',
        },
        { type: 'apply_patch' },
      ],
    );
    const computer = {
      id: 'cu_1',
      type: 'computer_call',
      call_id: 'call_cu',
      action: { type: 'click', x: 1, y: 2, button: 'left' },
      pending_safety_checks: [],
      status: 'completed',
    };
    const patch = {
      id: 'ap_1',
      type: 'apply_patch_call',
      call_id: 'call_ap',
      operation: { type: 'delete_file', path: '/etc/passwd' },
      status: 'completed',
    };
    const custom = {
      id: 'ct_1',
      type: 'custom_tool_call',
      call_id: 'call_ct',
      name: 'sql',
      input: 'SELECT 1',
    };
    const { body, evidence } = enforceResponsesBody(response([custom, computer, patch]), typed);
    expect((body as JsonObject).output).toEqual([custom, computer]);
    expect(evidence.tool_calls.map((c) => [c.name, c.policy_state])).toEqual([
      ['sql', 'allowed'],
      ['computer', 'allowed'],
      ['apply_patch', 'blocked'],
    ]);
    expect(evidence.tool_calls[1]?.arguments_hash).toBe(hashLenient(computer.action));
    // A typed call records its tool's capability contract; function and custom calls have none.
    expect(evidence.tool_calls.map((c) => c.capability)).toEqual([
      undefined,
      'wardwright.computer_use.v1',
      undefined,
    ]);
  });

  it('records the computer use contract of a call to the hidden computer tool', () => {
    const hidden = contextFor(
      { rules: [{ id: 'no-computer', action: 'hide', match: { name: 'computer' } }] },
      [fn('search'), { type: 'computer', display_width: 800, display_height: 600 }],
    );
    const computer = {
      id: 'cu_1',
      type: 'computer_call',
      call_id: 'call_cu',
      action: { type: 'screenshot' },
      pending_safety_checks: [],
      status: 'completed',
    };
    const { body, evidence } = enforceResponsesBody(response([computer]), hidden);
    expect((body as JsonObject).output).toEqual([]);
    expect(evidence.tool_calls).toEqual([
      expect.objectContaining({
        name: 'computer',
        capability: 'wardwright.computer_use.v1',
        policy_state: 'blocked',
        reason: 'hidden',
      }),
    ]);
  });

  it('tells the agent why a call-time rule withheld a call, in a message of its own', () => {
    const denying = contextFor(
      {
        rules: [
          {
            id: 'no-force-push',
            action: 'deny',
            match: { name: 'search' },
            message: 'Searching is off today.',
          },
        ],
      },
      [fn('search')],
    );
    const { body, evidence } = enforceResponsesBody(
      response([call('search', 'call_s')], { output_text: '' }),
      denying,
    );
    expect(evidence.tool_calls[0]).toMatchObject({
      policy_state: 'blocked',
      decision: { outcome: 'deny', rule: 'no-force-push' },
    });
    expect((body as JsonObject).output).toEqual([
      {
        id: 'msg_toolgate_fc_call_s',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Searching is off today.', annotations: [] }],
      },
    ]);
    expect((body as JsonObject).output_text).toBe('Searching is off today.');
  });
});

describe('enforceResponsesBody: provider-run items', () => {
  const hosted: JsonValue[] = [
    { type: 'web_search' },
    { type: 'file_search', vector_store_ids: ['vs_1'] },
    { type: 'code_interpreter', container: { type: 'auto' } },
    { type: 'mcp', server_label: 'github', server_url: 'https://mcp.example.com' },
  ];
  const webSearch = {
    id: 'ws_1',
    type: 'web_search_call',
    status: 'completed',
    action: {
      type: 'search',
      query: 'capital of France',
      sources: [{ type: 'url', url: 'https://example.com/a' }],
    },
  };
  const fileSearch = {
    id: 'fs_1',
    type: 'file_search_call',
    status: 'completed',
    queries: ['retry settings'],
    results: [{ file_id: 'file-1', filename: 'a.md', score: 0.9, text: 'x' }],
  };
  const code = {
    id: 'ci_1',
    type: 'code_interpreter_call',
    status: 'completed',
    code: 'print(1)',
    container_id: 'cntr_1',
    outputs: null,
  };
  const mcpCall = {
    id: 'mcp_1',
    type: 'mcp_call',
    server_label: 'github',
    name: 'create_issue',
    arguments: '{"title":"x"}',
    output: 'ok',
    error: null,
  };
  const cited = message('Paris.', [
    {
      type: 'url_citation',
      url: 'https://example.com/a',
      title: 'A',
      start_index: 0,
      end_index: 6,
    },
    { type: 'file_citation', file_id: 'file-1', filename: 'a.md', index: 0 },
  ]);

  it('reports each as capability evidence: queries hashed, sources, container, server', () => {
    const ctx = contextFor({ rules: [] }, hosted);
    const { body, evidence } = enforceResponsesBody(
      response([webSearch, fileSearch, code, mcpCall, cited]),
      ctx,
    );
    expect((body as JsonObject).output).toHaveLength(5);
    expect(evidence.hosted_tool_events).toEqual([
      {
        id: 'ws_1',
        capability: 'wardwright.web_search.v1',
        provider_type: 'web_search_call:web_search',
        name: 'web_search',
        fidelity: 'normalized',
        input_hash: hashLenient(webSearch.action),
        policy_state: 'allowed',
        sources: ['https://example.com/a'],
      },
      {
        id: 'fs_1',
        capability: 'wardwright.file_search.v1',
        provider_type: 'file_search_call:file_search',
        name: 'file_search',
        fidelity: 'normalized',
        input_hash: hashLenient({ queries: ['retry settings'] }),
        policy_state: 'allowed',
        sources: ['file-1'],
      },
      {
        id: 'ci_1',
        capability: 'wardwright.code_exec.v1',
        provider_type: 'code_interpreter_call:code_interpreter',
        name: 'code_interpreter',
        fidelity: 'normalized',
        input_hash: hashLenient({ code: 'print(1)' }),
        policy_state: 'allowed',
        container: 'cntr_1',
      },
      {
        id: 'mcp_1',
        capability: 'wardwright.mcp_tool.v1',
        provider_type: 'mcp_call:github/create_issue',
        name: 'github/create_issue',
        fidelity: 'provider_attested',
        input_hash: hashLenient('{"title":"x"}'),
        policy_state: 'allowed',
      },
      {
        capability: 'wardwright.web_search.v1',
        provider_type: 'url_citation:web_search',
        name: 'web_search',
        fidelity: 'normalized',
        policy_state: 'allowed',
        sources: ['https://example.com/a'],
      },
    ]);
  });

  it('labels an MCP tool list with its server, and withholds one of a server not offered', () => {
    const list = (server: string): JsonObject => ({
      id: `mcpl_${server}`,
      type: 'mcp_list_tools',
      server_label: server,
      tools: [{ name: 'create_issue', input_schema: { type: 'object' } }],
    });
    const ctx = contextFor({ rules: [] }, hosted);
    const { body, evidence } = enforceResponsesBody(
      response([list('github'), list('gitlab')]),
      ctx,
    );
    expect((body as JsonObject).output).toEqual([list('github')]);
    expect(evidence.hosted_tool_events).toEqual([
      {
        id: 'mcpl_github',
        capability: 'wardwright.mcp_tool.v1',
        provider_type: 'mcp_list_tools',
        name: 'mcp',
        fidelity: 'provider_attested',
        policy_state: 'allowed',
        server: 'github',
      },
      {
        id: 'mcpl_gitlab',
        capability: 'wardwright.mcp_tool.v1',
        provider_type: 'mcp_list_tools',
        name: 'mcp',
        fidelity: 'opaque',
        policy_state: 'blocked',
        server: 'gitlab',
      },
    ]);
  });

  it("shows the agent an offered server's tool list without the tools a hide rule covers", () => {
    const list: JsonObject = {
      id: 'mcpl_github',
      type: 'mcp_list_tools',
      server_label: 'github',
      tools: [
        { name: 'create_issue', input_schema: { type: 'object' } },
        { name: 'delete_repo', input_schema: { type: 'object' } },
      ],
    };
    const hiding = contextFor(
      { rules: [{ id: 'no-delete', action: 'hide', match: { name: 'github/delete_repo' } }] },
      hosted,
    );
    const { body } = enforceResponsesBody(response([list]), hiding);
    expect((body as JsonObject).output).toEqual([
      { ...list, tools: [{ name: 'create_issue', input_schema: { type: 'object' } }] },
    ]);
    // Nothing hidden: the very item, untouched.
    const open = enforceResponsesBody(response([list]), contextFor({ rules: [] }, hosted));
    expect(((open.body as JsonObject).output as JsonValue[])[0]).toBe(list);
  });

  it('records an image generation without a contract: none of the six covers it', () => {
    const ctx = contextFor({ rules: [] }, [{ type: 'image_generation' }]);
    const image = {
      id: 'ig_1',
      type: 'image_generation_call',
      status: 'completed',
      result: 'bW9jaw==',
    };
    const { evidence } = enforceResponsesBody(response([image]), ctx);
    expect(evidence.hosted_tool_events).toEqual([
      expect.objectContaining({
        provider_type: 'image_generation_call:image_generation',
        capability: 'unknown',
        policy_state: 'allowed',
      }),
    ]);
  });

  it('withholds what a hidden tool produced, and the citations of a hidden search', () => {
    const ctx = contextFor(
      {
        rules: [
          { id: 'no-web', action: 'hide', match: { name: 'web_search' } },
          {
            id: 'no-issues',
            action: 'hide',
            match: { name: 'github/create_issue', declared_by: 'mcp' },
          },
        ],
      },
      hosted,
    );
    const { body, evidence } = enforceResponsesBody(
      response([webSearch, fileSearch, mcpCall, cited], { output_text: 'Paris.' }),
      ctx,
    );
    const output = (body as JsonObject).output as JsonObject[];
    expect(output.map((i) => i.type)).toEqual(['file_search_call', 'message']);
    const annotations = ((output[1] as JsonObject).content as JsonObject[])[0]?.annotations;
    expect(annotations).toEqual([
      { type: 'file_citation', file_id: 'file-1', filename: 'a.md', index: 0 },
    ]);
    expect((body as JsonObject).output_text).toBe('Paris.');
    expect(evidence.hosted_tool_events.map((e) => [e.name, e.policy_state])).toEqual([
      ['web_search', 'blocked'],
      ['file_search', 'allowed'],
      ['github/create_issue', 'blocked'],
      ['web_search', 'blocked'],
    ]);
  });

  it('withholds an MCP approval request for a hidden tool or a server never offered', () => {
    const ctx = contextFor(
      { rules: [{ id: 'no-delete', action: 'hide', match: { name: 'github/delete_*' } }] },
      hosted,
    );
    const approval = (server: string, name: string): JsonObject => ({
      id: `mcpr_${name}`,
      type: 'mcp_approval_request',
      server_label: server,
      name,
      arguments: '{}',
    });
    const { body } = enforceResponsesBody(
      response([
        approval('github', 'delete_repo'),
        approval('gitlab', 'create_issue'),
        approval('github', 'create_issue'),
      ]),
      ctx,
    );
    expect((body as JsonObject).output).toEqual([approval('github', 'create_issue')]);
  });

  it('withholds a hosted shell call together with its output', () => {
    const ctx = contextFor(
      { rules: [{ id: 'no-shell', action: 'hide', match: { name: 'shell' } }] },
      [{ type: 'shell', environment: { type: 'container_auto' } }, fn('search')],
    );
    const shellCall = {
      id: 'sh_1',
      type: 'shell_call',
      call_id: 'call_sh',
      action: { commands: ['ls'] },
      environment: { type: 'container_reference', container_id: 'cntr_9' },
      status: 'completed',
    };
    const shellOutput = { id: 'sho_1', type: 'shell_call_output', call_id: 'call_sh', output: [] };
    const { body, evidence } = enforceResponsesBody(
      response([shellCall, shellOutput, message('done')]),
      ctx,
    );
    expect((body as JsonObject).output).toEqual([message('done')]);
    expect(evidence.hosted_tool_events[0]).toMatchObject({
      name: 'shell',
      capability: 'wardwright.code_exec.v1',
      container: 'cntr_9',
      policy_state: 'blocked',
    });
  });
});

describe('enforceResponsesBody: shapes', () => {
  const ctx = contextFor(POLICY, TOOLS);

  it.each<[string, unknown]>([
    ['null', null],
    ['a string', 'hello'],
    ['no output', { object: 'response' }],
    ['output not a list', { output: { type: 'message' } }],
  ])('passes %s through with empty evidence', (_label, body) => {
    const enforced = enforceResponsesBody(body, ctx);
    expect(enforced.body).toBe(body);
    expect(enforced.evidence).toEqual({ tool_calls: [], hosted_tool_events: [] });
  });

  it('returns the same body when nothing changed', () => {
    const body = response([message('hi'), { type: 'reasoning', id: 'rs_1', summary: [] }, 7]);
    expect(enforceResponsesBody(body, ctx).body).toBe(body);
  });
});
