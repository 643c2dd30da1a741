import { mediateRequest } from '../engine/mediate-request.ts';
import { bundleOf, openAIRequest, openAITool } from '../engine/test-fixtures.ts';
import { enforceResponseBody } from '../response/enforce-response.ts';
import type { ReceiptInput } from './build-receipt.ts';

/**
 * Test support: a real Chat Completions request's receipt input — mediated by a bundle hiding
 * `create_pull_request`, answered with calls to `search` (a secret in its arguments) and to the
 * hidden tool.
 */
/** The request context every fixture receipt shares: gateway, times, identity, bundle. */
export const RECEIPT_INPUT_CONTEXT = {
  gateway: 'gw-1',
  receivedAt: '2026-01-02T03:04:05.000Z',
  completedAt: '2026-01-02T03:04:05.250Z',
  latencyMs: { total: 250, mediation: 0.4, upstream: 249 },
  identity: { human: 'alice', session: 's1', binding: 'verified' },
  bundleEtag: `sha256:${'e'.repeat(64)}`,
} as const;

const bundle = bundleOf({
  rules: [{ id: 'hide-pr-creation', action: 'hide', match: { name: 'create_pull_request' } }],
});

export function chatReceiptInput(
  id: string,
  tools = ['create_pull_request', 'search'],
  outcome: ReceiptInput['outcome'] = { status: 200 },
): ReceiptInput {
  const mediation = mediateRequest(bundle, {
    surface: 'openai-chat',
    body: openAIRequest(tools.map((t) => openAITool(t))),
    identity: { human: 'alice', session: 's1' },
  });
  const response = enforceResponseBody(
    {
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'search', arguments: '{"q":"x","token":"fake-secret"}' },
              },
              {
                id: 'call_2',
                type: 'function',
                function: { name: 'create_pull_request', arguments: '{}' },
              },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
    },
    mediation.response,
  );
  return {
    id,
    ...RECEIPT_INPUT_CONTEXT,
    mediation,
    outcome,
    response: response.evidence,
  };
}
