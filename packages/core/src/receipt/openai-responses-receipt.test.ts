import { describe, expect, it } from 'vitest';
import { mediateRequest } from '../engine/mediate-request.ts';
import { bundleOf } from '../engine/test-fixtures.ts';
import type { JsonObject } from '../json/json-value.ts';
import { enforceResponse } from '../response/enforce-response.ts';
import { buildReceiptBody } from './build-receipt.ts';
import { chainReceipt, verifyChain } from './chain.ts';
import { Receipt } from './receipt-schema.ts';

/**
 * Golden receipts of the OpenAI Responses surface: one request (function, hosted and MCP tools,
 * a history with a call and its output) under one policy, its answer enforced as a JSON body and
 * as the equivalent event stream. Both give the same evidence; the receipt hashes are fixed.
 */

const bundle = bundleOf({
  redact: ['token'],
  rules: [
    { id: 'hide-pr', action: 'hide', match: { name: 'create_pull_request' } },
    { id: 'gh', action: 'rename', match: { name: 'github/create_issue' }, alias: 'gh_issue' },
  ],
});

const fn = (name: string): JsonObject => ({
  type: 'function',
  name,
  parameters: { type: 'object', properties: {} },
  strict: false,
});

const request = (stream: boolean): JsonObject => ({
  model: 'gpt-4.1-mini',
  stream,
  input: [
    { role: 'user', content: 'file it' },
    { type: 'function_call', call_id: 'call_0', name: 'github/create_issue', arguments: '{}' },
    { type: 'function_call_output', call_id: 'call_0', output: '{"id":7,"token":"t-1"}' },
  ],
  tools: [
    fn('github/create_issue'),
    fn('create_pull_request'),
    { type: 'web_search' },
    { type: 'mcp', server_label: 'docs', server_url: 'https://mcp.example.com/docs' },
  ],
});

const OUTPUT: JsonObject[] = [
  {
    id: 'ws_1',
    type: 'web_search_call',
    status: 'completed',
    action: { type: 'search', query: 'retry docs' },
  },
  {
    id: 'mcp_1',
    type: 'mcp_call',
    server_label: 'docs',
    name: 'search',
    arguments: '{"q":"retry"}',
    output: 'ok',
    error: null,
  },
  {
    id: 'fc_1',
    type: 'function_call',
    status: 'completed',
    call_id: 'call_1',
    name: 'gh_issue',
    arguments: '{"title":"x","token":"t-2"}',
  },
  {
    id: 'fc_2',
    type: 'function_call',
    status: 'completed',
    call_id: 'call_2',
    name: 'create_pull_request',
    arguments: '{}',
  },
];
const BODY = { id: 'resp_1', object: 'response', status: 'completed', output: OUTPUT };

/** The same answer as events: each item added then done, then response.completed. */
function sse(): string {
  const events: JsonObject[] = [
    { type: 'response.created', response: { ...BODY, status: 'in_progress', output: [] } },
  ];
  OUTPUT.forEach((item, index) => {
    events.push({ type: 'response.output_item.added', output_index: index, item });
    events.push({ type: 'response.output_item.done', output_index: index, item });
  });
  events.push({ type: 'response.completed', response: BODY });
  return events
    .map(
      (e, i) =>
        `event: ${String(e.type)}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`,
    )
    .join('');
}

function receipt(stream: boolean) {
  const mediation = mediateRequest(bundle, {
    surface: 'openai-responses',
    body: request(stream),
    identity: { human: 'alice', trusted: ['human'] },
  });
  const enforced = enforceResponse(stream ? { sse: sse() } : { json: BODY }, mediation.response);
  const body = buildReceiptBody({
    id: `r-${stream}`,
    gateway: 'gw-1',
    receivedAt: '2026-01-02T03:04:05.000Z',
    completedAt: '2026-01-02T03:04:05.250Z',
    latencyMs: { total: 250, mediation: 0.4, upstream: 249 },
    identity: { human: 'alice', binding: 'verified' },
    bundleEtag: bundle.etag,
    mediation,
    outcome: { status: 200 },
    response: enforced.evidence,
    toolResults: mediation.toolResults,
  });
  return chainReceipt(body, null);
}

describe('OpenAI Responses receipts', () => {
  it('record the same evidence for a JSON answer and its event stream', () => {
    const json = receipt(false);
    const streamed = receipt(true);
    expect(Receipt.parse(json)).toEqual(json);
    expect(streamed.response).toEqual(json.response);
    expect(streamed.tool_results).toEqual(json.tool_results);
    expect(json.surface).toBe('openai-responses');
    expect(json.response?.tool_calls.map((c) => [c.name, c.policy_state])).toEqual([
      ['github/create_issue', 'allowed'],
      ['create_pull_request', 'blocked'],
    ]);
    expect(json.response?.hosted_tool_events.map((e) => e.provider_type)).toEqual([
      'web_search_call:web_search',
      'mcp_call:docs/search',
    ]);
    expect(json.redacted_paths).toEqual([
      'response.tool_calls[0].arguments.token',
      'tool_results[0].result.token',
    ]);
    expect(verifyChain([json]).valid).toBe(true);
  });

  // Golden vectors: the receipt format, the engine's decisions or canonicalization changing
  // changes these. If that is intended, it breaks stored chains: bump the receipt schema.
  it('match the golden hashes', () => {
    expect(receipt(false).hash).toMatchInlineSnapshot(
      `"sha256:b9acf82474b0c12ba3ed6474900ddd19d638bf34bf89d886301ba55f99a07a46"`,
    );
    expect(receipt(true).hash).toMatchInlineSnapshot(
      `"sha256:fde266ebe35a073fe1d013ad0b126953152241747404bebf7ca10ef402062b52"`,
    );
  });
});

/**
 * The fields a Responses answer adds to evidence: an MCP tool list's server (`server`, the only
 * place its label is kept) and a computer call's contract (`capability`). Receipts without them
 * hash as before (the vectors above); these fix the ones with them.
 */
describe('OpenAI Responses receipts of MCP tool lists and computer calls', () => {
  const tools: JsonObject[] = [
    { type: 'mcp', server_label: 'docs', server_url: 'https://mcp.example.com/docs' },
    {
      type: 'computer_use_preview',
      display_width: 1024,
      display_height: 768,
      environment: 'linux',
    },
  ];
  const output: JsonObject[] = [
    {
      id: 'mcpl_1',
      type: 'mcp_list_tools',
      server_label: 'docs',
      tools: [{ name: 'search', input_schema: { type: 'object' } }],
    },
    {
      id: 'cu_1',
      type: 'computer_call',
      call_id: 'call_cu',
      status: 'completed',
      action: { type: 'screenshot' },
      pending_safety_checks: [],
    },
  ];
  const typedReceipt = () => {
    const mediation = mediateRequest(bundleOf({ rules: [] }), {
      surface: 'openai-responses',
      body: { model: 'computer-use-preview', input: 'look', tools },
    });
    const json = { id: 'resp_2', object: 'response', status: 'completed', output };
    const enforced = enforceResponse({ json }, mediation.response);
    expect(enforced.body).toBe(json);
    return chainReceipt(
      buildReceiptBody({
        id: 'r-typed',
        gateway: 'gw-1',
        receivedAt: '2026-01-02T03:04:05.000Z',
        completedAt: '2026-01-02T03:04:05.250Z',
        latencyMs: { total: 250, mediation: 0.4, upstream: 249 },
        identity: { binding: 'unverified' },
        bundleEtag: 'sha256:0',
        mediation,
        outcome: { status: 200 },
        response: enforced.evidence,
      }),
      null,
    );
  };

  it('keep the server of a tool list and the contract of a computer call, and parse', () => {
    const typed = typedReceipt();
    expect(Receipt.parse(typed)).toEqual(typed);
    expect(typed.response?.hosted_tool_events).toEqual([
      expect.objectContaining({ provider_type: 'mcp_list_tools', server: 'docs' }),
    ]);
    expect(typed.response?.tool_calls).toEqual([
      expect.objectContaining({
        name: 'computer',
        capability: 'wardwright.computer_use.v1',
        policy_state: 'allowed',
      }),
    ]);
    expect(verifyChain([typed]).valid).toBe(true);
  });

  it('match the golden hash', () => {
    expect(typedReceipt().hash).toMatchInlineSnapshot(
      `"sha256:605a51cd5d9e2c2e10dfd768008819302c222e84329b5fe280390af9601ccdd8"`,
    );
  });
});
