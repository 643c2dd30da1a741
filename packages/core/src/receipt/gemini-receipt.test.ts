import { describe, expect, it } from 'vitest';
import {
  geminiDeclaration,
  geminiRequest,
  mediateGemini,
  modelTurn,
  responseTurn,
} from '../engine/surfaces/gemini-fixtures.ts';
import { bundleOf } from '../engine/test-fixtures.ts';
import { enforceResponseBody } from '../response/enforce-response.ts';
import { buildReceiptBody } from './build-receipt.ts';
import { chainReceipt, verifyChain } from './chain.ts';
import { ReceiptBody } from './receipt-schema.ts';
import { RECEIPT_INPUT_CONTEXT } from './test-receipts.ts';

/**
 * A Gemini turn end to end through the engine into a receipt: a renamed MCP tool (Gemini-legal
 * alias), a hidden tool, Google Search offered, the previous call's result in the request, and a
 * response with an allowed call, a call to the hidden tool and search grounding.
 */
function geminiReceipt() {
  const bundle = bundleOf({
    rules: [
      { id: 'hide-pr', action: 'hide', match: { name: 'create_pull_request' } },
      {
        id: 'scope',
        action: 'augment',
        match: { name: 'search_code' },
        description_append: 'acme only',
      },
    ],
  });
  const body = geminiRequest(
    [
      geminiDeclaration('search_code'),
      geminiDeclaration('create_pull_request'),
      geminiDeclaration('github/create_issue'),
    ],
    [{ googleSearch: {} }],
    {
      contents: [
        { role: 'user', parts: [{ text: 'file the flaky test' }] },
        modelTurn([['search_code', { q: 'flaky' }]]),
        responseTurn([['search_code', { output: { hits: ['ci.yaml'] } }]]),
      ],
    },
  );
  const mediation = mediateGemini(bundle, body, {
    identity: { human: 'alice', session: 's1', trusted: ['human'] },
  });
  const response = enforceResponseBody(
    {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'Filing it.' },
              { functionCall: { name: 'github_create_issue', args: { title: 'flaky ci' } } },
              { functionCall: { name: 'create_pull_request', args: {} } },
            ],
          },
          finishReason: 'STOP',
          groundingMetadata: {
            webSearchQueries: ['flaky ci'],
            groundingChunks: [{ web: { uri: 'https://example.com/flaky', title: 'example.com' } }],
          },
        },
      ],
    },
    mediation.response,
  );
  return buildReceiptBody({
    id: 'rcpt-gemini-1',
    ...RECEIPT_INPUT_CONTEXT,
    mediation,
    outcome: { status: 200 },
    response: response.evidence,
    toolResults: mediation.toolResults,
  });
}

describe('a Gemini receipt', () => {
  it('records tools, aliases, calls, built-in evidence and results', () => {
    const body = geminiReceipt();
    expect(ReceiptBody.parse(body)).toEqual(body);
    expect([body.surface, body.model, body.stream]).toEqual(['gemini', 'gemini-2.5-flash', false]);
    expect(body.tools.map((t) => [t.name, t.provider_name, t.policy_state, t.capability])).toEqual([
      ['search_code', undefined, 'wrapped', undefined],
      ['create_pull_request', undefined, 'hidden', undefined],
      ['github/create_issue', 'github_create_issue', 'allowed', undefined],
      ['googleSearch', undefined, 'allowed', 'wardwright.web_search.v1'],
    ]);
    expect(body.wardwright_tool_mediation?.provider_visible_tools.map((t) => t.name)).toEqual([
      'search_code',
      'github_create_issue',
      'googleSearch',
    ]);
    expect(body.response?.tool_calls.map((c) => [c.name, c.provider_name, c.policy_state])).toEqual(
      [
        ['github/create_issue', 'github_create_issue', 'allowed'],
        ['create_pull_request', undefined, 'blocked'],
      ],
    );
    expect(body.response?.hosted_tool_events).toEqual([
      expect.objectContaining({
        capability: 'wardwright.web_search.v1',
        provider_type: 'groundingMetadata:googleSearch',
        sources: ['https://example.com/flaky'],
        policy_state: 'allowed',
      }),
    ]);
    expect(body.tool_results).toEqual([
      expect.objectContaining({ tool_call_id: '', is_error: false, elapsed_ms: null }),
    ]);
    expect(body.tool_results?.[0]?.action_id).toMatch(/^act_[0-9a-f]{32}$/);
  });

  // Golden vector: the same Gemini turn under the same bundle is byte-identical, forever. A
  // change here changes what a stored Gemini receipt hashes to.
  it('matches the golden hash', () => {
    const first = chainReceipt(geminiReceipt(), null);
    const again = chainReceipt(geminiReceipt(), null);
    expect(again.hash).toBe(first.hash);
    expect(verifyChain([first]).valid).toBe(true);
    expect(first.hash).toMatchInlineSnapshot(
      `"sha256:ebf0591001962c78bc2e51ca9411f00862787ba40f0f92a3003379e96b35bcf0"`,
    );
  });
});
