import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../json/json-value.ts';
import { createMemoryCallGate } from '../call-gate.ts';
import { mediateRequest } from '../mediate-request.ts';
import { bundleOf } from '../test-fixtures.ts';
import { mcpToolListRequest } from './mcp-tools.ts';

/** MCP tool lists through the same engine as LLM requests (the gateway's MCP proxy uses this). */

function mcpTool(name: string, extra: JsonObject = {}): JsonObject {
  return {
    name,
    description: `${name} tool`,
    inputSchema: { type: 'object', properties: { title: { type: 'string' } } },
    ...extra,
  };
}

const LIST = [mcpTool('create_issue'), mcpTool('delete_repo'), mcpTool('search.code')];

function served(result: { body: JsonObject }): JsonObject[] {
  return result.body.tools as JsonObject[];
}

describe('MCP tool lists', () => {
  it('matches rules by server/tool, declared_by mcp, and serves upstream names', () => {
    const bundle = bundleOf({
      rules: [
        { id: 'no-delete', action: 'hide', match: { name: 'github/delete_repo' } },
        {
          id: 'warn',
          action: 'augment',
          match: { name: 'github/*', declared_by: 'mcp' },
          description_append: 'Mind the repo.',
          parameters: { required: ['title'] },
        },
        {
          id: 'alias',
          action: 'rename',
          match: { name: 'github/create_issue' },
          alias: 'file_bug',
        },
        // Written for agent-declared tools: it must not touch an MCP tool of the same name.
        { id: 'agent-only', action: 'hide', match: { name: '*', declared_by: 'agent' } },
      ],
    });
    const result = mediateRequest(bundle, {
      surface: 'mcp',
      body: mcpToolListRequest('github', LIST),
    });
    expect(result.changed).toBe(true);
    const tools = served(result);
    expect(tools.map((t) => t.name)).toEqual(['file_bug', 'search.code']);
    expect(tools[0]?.description).toBe('create_issue tool\n\nMind the repo.');
    expect((tools[0]?.inputSchema as JsonObject | undefined)?.required).toEqual(['title']);
    expect(result.model).toBe('mcp/github');
    expect(result.tools.map((t) => [t.name, t.declared_by, t.executed_by, t.policy_state])).toEqual(
      [
        ['github/create_issue', 'mcp', 'remote_mcp', 'wrapped'],
        ['github/delete_repo', 'mcp', 'remote_mcp', 'hidden'],
        ['github/search.code', 'mcp', 'remote_mcp', 'wrapped'],
      ],
    );
    // An MCP name needs no provider-legal alias: the agent's MCP client reads it.
    expect(result.tools[2]?.provider_name).toBe('search.code');
  });

  it('does not share a memoized catalog between two servers listing the same tools', () => {
    const bundle = bundleOf({
      rules: [{ id: 'h', action: 'hide', match: { name: 'gitlab/delete_repo' } }],
    });
    const github = mediateRequest(bundle, {
      surface: 'mcp',
      body: mcpToolListRequest('github', LIST),
    });
    const gitlab = mediateRequest(bundle, {
      surface: 'mcp',
      body: mcpToolListRequest('gitlab', LIST),
    });
    expect(served(github)).toHaveLength(3);
    expect(served(gitlab).map((t) => t.name)).toEqual(['create_issue', 'search.code']);
    expect(gitlab.tools[0]?.name).toBe('gitlab/create_issue');
  });

  it('judges a call by its agent-facing name with call-time rules on server/tool', () => {
    const bundle = bundleOf({
      rules: [
        {
          id: 'alias',
          action: 'rename',
          match: { name: 'github/create_issue' },
          alias: 'file_bug',
        },
        {
          id: 'no-prod',
          action: 'deny',
          match: { name: 'github/create_issue' },
          when: "args.title.startsWith('prod')",
        },
      ],
    });
    const gate = createMemoryCallGate();
    const result = mediateRequest(bundle, {
      surface: 'mcp',
      body: mcpToolListRequest('github', LIST),
      gate,
    });
    const denied = result.response.decideCall('1', 'file_bug', { title: 'prod down' });
    expect(denied.policy_state).toBe('blocked');
    expect(denied.decision?.outcome).toBe('deny');
    expect(denied.name).toBe('github/create_issue');
    const allowed = result.response.decideCall('2', 'file_bug', { title: 'typo' });
    expect(allowed.policy_state).toBe('allowed');
    // The original name of a renamed tool is not callable.
    expect(result.response.decideCall('3', 'create_issue', {}).reason).toBe('not_declared');
  });

  it('refuses a list it cannot read, naming the field', () => {
    const bundle = bundleOf({ rules: [] });
    expect(() =>
      mediateRequest(bundle, {
        surface: 'mcp',
        body: mcpToolListRequest('github', [{ name: 'bad name!' }]),
      }),
    ).toThrow(/tools\[0\]\.name/);
    expect(() =>
      mediateRequest(bundle, { surface: 'mcp', body: mcpToolListRequest('Bad Server', LIST) }),
    ).toThrow(/server/);
  });
});
