import type { Receipt } from '@toolgate/core';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedReceipts } from '../testing/served-receipts.ts';
import { startTestGateway, type TestGateway } from '../testing/test-gateway.ts';

/**
 * OpenAI Responses' hosted and typed tools through a real gateway in front of the mock provider,
 * with the official `openai` SDK, streamed and not: what the provider ran reaches the receipt as
 * capability evidence (queries hashed, sources, container ids, MCP server labels); what a hidden
 * tool produced, or an MCP call or approval request for a hidden MCP tool, never reaches the
 * agent; an MCP server's credentials reach the provider and nothing else.
 */

let gw: TestGateway;
let openai: OpenAI;

const SECRET = 'ghp_mcpSecretToken0123456789abcdefghij';
const fn: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'search_code',
  parameters: { type: 'object', properties: {} },
  strict: false,
};
const GITHUB: OpenAI.Responses.Tool = {
  type: 'mcp',
  server_label: 'github',
  server_url: 'https://mcp.example.com/github',
  authorization: SECRET,
  require_approval: 'never',
};
const COMPUTER: OpenAI.Responses.Tool = {
  type: 'computer_use_preview',
  display_width: 1024,
  display_height: 768,
  environment: 'browser',
};

beforeAll(async () => {
  gw = await startTestGateway();
  await gw.applyPolicies([
    {
      name: 'hosted',
      spec: {
        rules: [
          {
            id: 'no-web-for-nano',
            action: 'hide',
            match: { name: 'web_search' },
            when: "request.model.endsWith('-nano')",
          },
          { id: 'no-files', action: 'hide', match: { name: 'file_search' } },
          {
            id: 'no-repo-deletes',
            action: 'hide',
            match: { name: 'github/delete_*', declared_by: 'mcp' },
          },
          { id: 'no-computer', action: 'hide', match: { name: 'computer' } },
        ],
      },
    },
  ]);
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-test-FAKE', maxRetries: 0 });
});
afterAll(() => gw?.close());

type Output = OpenAI.Responses.ResponseOutputItem;

/** One request whose answer the mock scripts; returns what the agent got and the receipt. */
async function ask(
  tools: OpenAI.Responses.Tool[],
  script: object,
  options: { stream: boolean; model?: string },
) {
  const params = {
    model: options.model ?? 'gpt-4.1',
    tools,
    input: [{ role: 'user' as const, content: `mock: ${JSON.stringify(script)}` }],
  };
  const response = options.stream
    ? await openai.responses.stream(params).finalResponse()
    : await openai.responses.create(params);
  const receipt = (await servedReceipts(gw.spool)).at(-1) as Receipt;
  return { output: response.output as Output[], text: response.output_text, receipt };
}

const types = (output: Output[]) => output.map((i) => i.type);
const seenTools = () =>
  (gw.mock.requests.last(1)[0] as { body: { tools?: Array<{ type: string }> } }).body.tools;

describe.each([false, true])('Responses hosted tools (stream: %s)', (stream) => {
  it('records a web search with its query hashed and its sources, citations kept', async () => {
    const { output, receipt } = await ask(
      [fn, { type: 'web_search' }],
      { hosted: 'web_search' },
      { stream },
    );
    expect(types(output)).toEqual(['web_search_call', 'message']);
    const message = output[1] as OpenAI.Responses.ResponseOutputMessage;
    expect(message.content[0]).toMatchObject({ annotations: [{ type: 'url_citation' }] });
    expect(receipt.response?.hosted_tool_events).toEqual([
      expect.objectContaining({
        provider_type: 'web_search_call:web_search',
        capability: 'wardwright.web_search.v1',
        fidelity: 'normalized',
        policy_state: 'allowed',
        input_hash: expect.stringMatching(/^sha256:/),
        sources: ['https://example.com/mock-result-1', 'https://example.com/mock-result-2'],
      }),
      expect.objectContaining({
        provider_type: 'url_citation:web_search',
        sources: ['https://example.com/mock-result-1'],
      }),
    ]);
  });

  it('withholds the search of a tool a when: hid, and its citations', async () => {
    const { output, text, receipt } = await ask(
      [fn, { type: 'web_search' }],
      { hosted: 'web_search' },
      { stream, model: 'gpt-4.1-nano' },
    );
    expect(seenTools()?.map((t) => t.type)).toEqual(['function']);
    expect(types(output)).toEqual(['message']);
    expect((output[0] as OpenAI.Responses.ResponseOutputMessage).content[0]).toMatchObject({
      annotations: [],
    });
    expect(text).toBe('According to Mock result 1, the answer is 42.');
    expect(receipt.response?.hosted_tool_events.map((e) => e.policy_state)).toEqual([
      'blocked',
      'blocked',
    ]);
  });

  it('withholds what a hidden file search ran, and records a code interpreter’s container', async () => {
    const files = await ask(
      [{ type: 'file_search', vector_store_ids: ['vs_1'] }],
      { hosted: 'file_search' },
      { stream },
    );
    expect(types(files.output)).toEqual(['message']);
    expect(files.receipt.response?.hosted_tool_events[0]).toMatchObject({
      capability: 'wardwright.file_search.v1',
      policy_state: 'blocked',
    });
    const code = await ask(
      [{ type: 'code_interpreter', container: { type: 'auto' } }],
      { hosted: 'code_interpreter' },
      { stream },
    );
    expect(types(code.output)).toEqual(['code_interpreter_call', 'message']);
    expect(code.receipt.response?.hosted_tool_events[0]).toMatchObject({
      capability: 'wardwright.code_exec.v1',
      container: expect.stringMatching(/^cntr_/),
      policy_state: 'allowed',
    });
  });

  it('lets an MCP call through, labelled with its server, and withholds one to a hidden tool', async () => {
    const allowed = await ask(
      [GITHUB],
      { hosted: 'mcp', mcp: { tool: 'create_issue' } },
      { stream },
    );
    expect(types(allowed.output)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect(allowed.receipt.response?.hosted_tool_events).toEqual([
      expect.objectContaining({
        provider_type: 'mcp_list_tools',
        name: 'mcp',
        server: 'github',
        policy_state: 'allowed',
      }),
      expect.objectContaining({
        provider_type: 'mcp_call:github/create_issue',
        capability: 'wardwright.mcp_tool.v1',
        policy_state: 'allowed',
      }),
    ]);
    const hidden = await ask([GITHUB], { hosted: 'mcp', mcp: { tool: 'delete_repo' } }, { stream });
    expect(types(hidden.output)).toEqual(['mcp_list_tools', 'message']);
    expect(hidden.receipt.response?.hosted_tool_events[1]).toMatchObject({
      name: 'github/delete_repo',
      policy_state: 'blocked',
    });
  });

  it('never hands the agent an approval request for a hidden MCP tool', async () => {
    const { output } = await ask(
      [GITHUB],
      { hosted: 'mcp', mcp: { tool: 'delete_repo', approval: true } },
      { stream },
    );
    expect(types(output)).toEqual(['mcp_list_tools', 'message']);
    const ok = await ask(
      [GITHUB],
      { hosted: 'mcp', mcp: { tool: 'create_issue', approval: true } },
      { stream },
    );
    expect(types(ok.output)).toEqual(['mcp_list_tools', 'mcp_approval_request', 'message']);
  });

  it('withholds a computer call when the computer tool is hidden', async () => {
    const { output, receipt } = await ask(
      [fn, COMPUTER],
      { calls: [{ name: 'computer' }] },
      { stream },
    );
    expect(seenTools()?.map((t) => t.type)).toEqual(['function']);
    // The mock, offered no computer tool, calls a function named computer: still withheld.
    expect(types(output)).toEqual([]);
    expect(receipt.response?.tool_calls[0]).toMatchObject({
      name: 'computer',
      policy_state: 'blocked',
      reason: 'hidden',
    });
  });
});

describe('an MCP server’s credentials', () => {
  it('reach the provider and never a receipt, a stored schema or a log of the gateway', async () => {
    await ask(
      [fn, GITHUB, { type: 'file_search', vector_store_ids: ['vs_1'] }],
      {},
      { stream: false },
    );
    expect(JSON.stringify(seenTools())).toContain(SECRET);
    const spooled = JSON.stringify(await gw.spool.pending(100_000));
    expect(spooled).toContain('[REDACTED]');
    expect(spooled).not.toContain(SECRET);
  });
});
