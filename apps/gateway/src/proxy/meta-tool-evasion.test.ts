import Anthropic from '@anthropic-ai/sdk';
import type { Receipt } from '@toolgate/core';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * A meta-tool (`mcp_tool`) call naming a hidden MCP tool in another form than `server` + `tool`
 * — the server inside `tool`, `tool_name`, other letter case, surrounding spaces, keys that
 * disagree — is judged on its normalized target (or refused when the target is ambiguous), so it
 * never reaches the agent, through either SDK, streaming and not. The same call written plainly
 * to a tool that is not hidden still goes through.
 */

let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

const EVASIONS: Array<[string, Record<string, unknown>, string]> = [
  ['server inside tool', { tool: 'github/delete_repo' }, 'rule:no-deletes'],
  ['mcp__ form inside tool', { tool: 'mcp__github__delete_repo' }, 'rule:no-deletes'],
  ['tool_name alias', { server: 'github', tool_name: 'delete_repo' }, 'rule:no-deletes'],
  ['other letter case', { server: 'GitHub', tool: 'Delete_Repo' }, 'rule:no-deletes'],
  ['surrounding spaces', { server: ' github ', tool: 'delete_repo\n' }, 'rule:no-deletes'],
  [
    'keys that disagree',
    { server: 'github', tool: 'list_issues', tool_name: 'delete_repo' },
    'meta_ambiguous_target',
  ],
  ['no server at all', { tool: 'delete_repo' }, 'meta_missing_target'],
];

const say = (value: object) => `mock: ${JSON.stringify(value)}`;
const canary = (args: Record<string, unknown>) => ({ ...args, arguments: { why: 'LEAK-CANARY' } });

async function lastReceipt(): Promise<Receipt> {
  return (await servedReceipts(gw.spool, 10_000)).at(-1) as Receipt;
}

beforeAll(async () => {
  gw = await startTestGateway();
  await gw.applyPolicies([
    {
      name: 'mcp-guardrails',
      spec: {
        rules: [{ id: 'no-deletes', action: 'hide', match: { name: 'github/delete_repo' } }],
      },
    },
  ]);
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-test-FAKE', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: 'sk-ant-test-FAKE', maxRetries: 0 });
});
afterAll(() => gw.close());

function openAIRequest(args: Record<string, unknown>) {
  return {
    model: 'gpt-4o-mini',
    messages: [{ role: 'user' as const, content: say({ call: 'mcp_tool', arguments: args }) }],
    tools: [
      {
        type: 'function' as const,
        function: { name: 'mcp_tool', parameters: { type: 'object', properties: {} } },
      },
    ],
  };
}

function anthropicRequest(args: Record<string, unknown>) {
  return {
    model: 'claude-test-model',
    max_tokens: 128,
    messages: [{ role: 'user' as const, content: say({ call: 'mcp_tool', arguments: args }) }],
    tools: [{ name: 'mcp_tool', input_schema: { type: 'object' as const, properties: {} } }],
  };
}

describe('meta-tool calls naming a hidden tool in another form (openai SDK)', () => {
  it.each(EVASIONS)('blocks %s', async (_name, args, reason) => {
    const result = await openai.chat.completions.create(openAIRequest(canary(args)));
    expect(JSON.stringify(result)).not.toContain('LEAK-CANARY');
    expect(result.choices[0]?.message.tool_calls).toBeUndefined();
    expect((await lastReceipt()).response?.tool_calls[0]).toMatchObject({
      policy_state: 'blocked',
      reason,
    });
  });

  it.each(EVASIONS)('blocks %s, streaming', async (_name, args) => {
    const stream = await openai.chat.completions.create({
      ...openAIRequest(canary(args)),
      stream: true,
    });
    let raw = '';
    for await (const chunk of stream) raw += JSON.stringify(chunk);
    expect(raw).not.toContain('LEAK-CANARY');
    expect(raw).not.toContain('mcp_tool');
  });

  it('releases a call to a tool that is not hidden', async () => {
    const args = { server: 'github', tool_name: 'list_issues' };
    const result = await openai.chat.completions.create(openAIRequest(args));
    const call = result.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('mcp_tool');
    expect((await lastReceipt()).response?.tool_calls[0]).toMatchObject({
      policy_state: 'allowed',
      resolved_tool: 'github/list_issues',
    });
  });
});

describe('meta-tool calls naming a hidden tool in another form (Anthropic SDK)', () => {
  it.each(EVASIONS)('blocks %s', async (_name, args) => {
    const message = await anthropic.messages.create(anthropicRequest(canary(args)));
    expect(JSON.stringify(message)).not.toContain('LEAK-CANARY');
    expect(message.content.some((b) => b.type === 'tool_use')).toBe(false);
    expect(message.stop_reason).toBe('end_turn');
  });

  it.each(EVASIONS)('blocks %s, streaming', async (_name, args) => {
    const stream = anthropic.messages.stream(anthropicRequest(canary(args)));
    const message = await stream.finalMessage();
    expect(JSON.stringify(message)).not.toContain('LEAK-CANARY');
    expect(message.content.some((b) => b.type === 'tool_use')).toBe(false);
  });
});
