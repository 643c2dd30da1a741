import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../json/json-value.ts';
import { mediateRequest } from './mediate-request.ts';
import { DEFAULT_META_TOOLS, readMetaCall } from './meta-tools.ts';
import { compileNamePattern } from './name-pattern.ts';
import {
  anthropicRequest,
  anthropicTool,
  bundleOf,
  openAIRequest,
  openAITool,
} from './test-fixtures.ts';

const META = DEFAULT_META_TOOLS;

describe('readMetaCall: one normalization of a meta-tool target', () => {
  it.each<[string, unknown, string]>([
    ['mcp_tool', { server: 'gh', tool: 'delete_repo' }, 'gh/delete_repo'],
    ['mcp_tool', { tool: 'gh/delete_repo' }, 'gh/delete_repo'],
    ['mcp_tool', { tool: 'mcp__gh__delete_repo' }, 'gh/delete_repo'],
    ['mcp_tool', { server: 'gh', tool: 'gh/delete_repo' }, 'gh/delete_repo'],
    ['mcp_tool', { server: 'gh', tool_name: 'delete_repo' }, 'gh/delete_repo'],
    ['mcp_tool', { server_name: 'gh', toolName: 'delete_repo' }, 'gh/delete_repo'],
    ['mcp_tool', { server: ' gh\t', tool: ' delete_repo\n' }, 'gh/delete_repo'],
    ['mcp_tool', { server: 'gh', tool: 'x', tool_name: 'x ' }, 'gh/x'],
    ['use_mcp_tool', { server_name: 'gh', tool_name: 'delete_repo' }, 'gh/delete_repo'],
    ['use_mcp_tool', { server: 'gh', tool: 'delete_repo' }, 'gh/delete_repo'],
  ])('%s %j → %s', (name, args, qualified) => {
    expect(readMetaCall(name, args as never, META)).toMatchObject({ qualifiedName: qualified });
  });

  it.each<[string, unknown, string]>([
    ['mcp_tool', { server: 'gh', tool: 'list', tool_name: 'delete_repo' }, 'ambiguous_target'],
    ['mcp_tool', { server: 'gh', server_name: 'other', tool: 'x' }, 'ambiguous_target'],
    ['mcp_tool', { server: 'gh', tool: 'other/x' }, 'ambiguous_target'],
    ['mcp_tool', { server: 'gh', tool: ['delete_repo'] }, 'ambiguous_target'],
    ['mcp_tool', { server: 7, tool: 'x' }, 'ambiguous_target'],
    ['mcp_tool', { tool: ' /x' }, 'missing_target'],
    ['mcp_tool', { tool: 'delete_repo' }, 'missing_target'],
    ['mcp_tool', { server: 'gh' }, 'missing_target'],
    ['mcp_tool', { server: 'gh', tool: '   ' }, 'missing_target'],
    ['mcp_tool', 'not an object', 'missing_target'],
  ])('%s %j is refused (%s)', (name, args, problem) => {
    expect(readMetaCall(name, args as never, META)).toEqual({ via: name, problem });
  });

  it('leaves ordinary tools alone', () => {
    expect(readMetaCall('search', { server: 'gh', tool: 'x' }, META)).toBeUndefined();
  });
});

describe('compileNamePattern ignoring case', () => {
  it.each([
    ['delete_repo', 'Delete_Repo'],
    ['github/*', 'GitHub/x'],
    ['/^delete_/', 'DELETE_repo'],
    ['[d]elete', 'Delete'],
  ])('%s matches %s', (pattern, name) => {
    expect(compileNamePattern(pattern)(name)).toBe(false);
    expect(compileNamePattern(pattern, { ignoreCase: true })(name)).toBe(true);
  });
});

describe('decideCall on meta-tool calls', () => {
  const bundle = bundleOf({
    rules: [{ id: 'no-deletes', action: 'hide', match: { name: 'github/delete_repo' } }],
  });
  const { response } = mediateRequest(bundle, {
    surface: 'openai-chat',
    body: openAIRequest([openAITool('mcp_tool')]),
  });
  const decide = (args: unknown) => response.decideCall('c', 'mcp_tool', JSON.stringify(args));

  it.each<[unknown, string]>([
    [{ server: 'github', tool: 'delete_repo' }, 'rule:no-deletes'],
    [{ tool: 'github/delete_repo' }, 'rule:no-deletes'],
    [{ server: 'GitHub', tool: 'DELETE_REPO' }, 'rule:no-deletes'],
    [{ server: 'github ', tool_name: ' delete_repo' }, 'rule:no-deletes'],
    [{ server: 'github', tool: 'list', tool_name: 'delete_repo' }, 'meta_ambiguous_target'],
    [{ tool: 'delete_repo' }, 'meta_missing_target'],
    [{}, 'meta_missing_target'],
  ])('blocks %j (%s)', (args, reason) => {
    expect(decide(args)).toMatchObject({ policy_state: 'blocked', reason });
  });

  it('allows a call to another tool, with its normalized target on record', () => {
    expect(decide({ server: ' github', tool_name: 'list_issues' })).toMatchObject({
      policy_state: 'allowed',
      resolved_tool: 'github/list_issues',
    });
  });

  it('gives a normalized call the same action id as the plain one', () => {
    const plain = decide({ server: 'github', tool: 'list_issues', arguments: { a: 1 } });
    const other = decide({ tool: 'github/list_issues ', arguments: { a: 1 } });
    expect(other.action_id).toBe(plain.action_id);
  });
});

describe('describeHostedEvent on calls that name what they should not', () => {
  const bundle = bundleOf({
    rules: [
      { id: 'hide-delete', action: 'hide', match: { name: 'delete_repo' } },
      { id: 'no-fetch', action: 'hide', match: { name: 'web_fetch', declared_by: 'provider' } },
      { id: 'no-mcp-deletes', action: 'hide', match: { name: 'github/delete_*' } },
      { id: 'no-secrets', action: 'hide', match: { name: 'secrets', declared_by: 'mcp' } },
    ],
  });
  const body: JsonObject = anthropicRequest(
    [
      anthropicTool('get_time'),
      anthropicTool('delete_repo'),
      { type: 'web_search_20250305', name: 'web_search' },
    ],
    {
      mcp_servers: [
        { type: 'url', url: 'https://a.test/sse', name: 'github' },
        { type: 'url', url: 'https://b.test/sse', name: 'secrets' },
      ],
    },
  );
  const { response } = mediateRequest(bundle, { surface: 'anthropic-messages', body });
  const state = (providerType: string, name?: string, server?: string) =>
    response.describeHostedEvent({
      providerType,
      ...(name === undefined ? {} : { name: server ? `${server}/${name}` : name }),
      ...(server === undefined ? {} : { server }),
    }).policy_state;

  it.each<[string, string | undefined, string | undefined, string]>([
    ['server_tool_use', 'web_search', undefined, 'allowed'],
    ['server_tool_use', 'delete_repo', undefined, 'blocked'], // a hidden client tool
    ['server_tool_use', 'get_time', undefined, 'blocked'], // a client tool dressed up
    ['server_tool_use', 'web_fetch', undefined, 'blocked'], // undeclared, but a rule hides it
    ['server_tool_use', 'Web_Fetch', undefined, 'blocked'],
    ['server_tool_use', 'some_future_tool', undefined, 'opaque'],
    ['mcp_tool_use', 'list_issues', 'github', 'allowed'],
    ['mcp_tool_use', 'delete_branch', 'github', 'blocked'],
    ['mcp_tool_use', 'Delete_Branch', 'github', 'blocked'],
    ['mcp_tool_use', 'read', 'secrets', 'blocked'], // its server is hidden
    ['mcp_tool_use', 'read', 'elsewhere', 'blocked'], // a server never offered
    ['mcp_tool_result', undefined, undefined, 'allowed'],
    ['mcp_list_tools', undefined, 'github', 'allowed'], // a tool list names a server, no tool
    ['mcp_list_tools', undefined, 'secrets', 'blocked'],
    ['mcp_list_tools', undefined, 'elsewhere', 'blocked'],
  ])('%s %s (server %s) → %s', (type, name, server, expected) => {
    expect(state(type, name, server)).toBe(expected);
  });
});

describe('decideCall records the contract of a typed tool', () => {
  const body = anthropicRequest([
    anthropicTool('read_file'),
    { type: 'computer_20250124', name: 'computer', display_width_px: 800, display_height_px: 600 },
  ]);
  it.each<[string, string | undefined]>([
    ['computer', 'wardwright.computer_use.v1'],
    ['read_file', undefined], // a function tool: no contract
  ])('%s → %s', (name, capability) => {
    const { response } = mediateRequest(bundleOf({ rules: [] }), {
      surface: 'anthropic-messages',
      body,
    });
    const decided = response.decideCall('toolu_1', name, {});
    expect(decided.policy_state).toBe('allowed');
    expect(decided.capability).toBe(capability);
  });

  it('replaced by a function, the tool claims no contract', () => {
    const bundle = bundleOf({
      rules: [
        {
          id: 'vetted-computer',
          action: 'replace',
          match: { name: 'computer' },
          tool: { name: 'computer', description: 'Vetted', parameters: { type: 'object' } },
        },
      ],
    });
    const { response } = mediateRequest(bundle, { surface: 'anthropic-messages', body });
    expect(response.decideCall('toolu_1', 'computer', {}).capability).toBeUndefined();
  });
});
