import { compactReceipt, type Receipt, type ReceiptBody } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../testing/test-api.ts';
import { chainOf, fixtureReceiptBody } from './receipt-fixtures.ts';
import { call, registerGateway } from './receipts-testing.ts';

/**
 * Evidence fields newer gateways write (an MCP tool list's `server`, a typed call's
 * `capability`) are taken on ingest, stored as sent and served back; the chain over them
 * verifies. An API that stripped or refused them would break the chain of every gateway
 * receipting an OpenAI Responses MCP server or computer call.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

function withTypedEvidence(body: ReceiptBody): ReceiptBody {
  const response = body.response ?? { tool_calls: [], hosted_tool_events: [] };
  return {
    ...body,
    surface: 'openai-responses',
    response: {
      ...response,
      tool_calls: response.tool_calls.map((c) => ({
        ...c,
        capability: 'wardwright.computer_use.v1',
      })),
      hosted_tool_events: [
        {
          id: 'mcpl_1',
          capability: 'wardwright.mcp_tool.v1',
          provider_type: 'mcp_list_tools',
          name: 'mcp',
          fidelity: 'provider_attested',
          policy_state: 'allowed',
          server: 'docs',
        },
      ],
    },
  };
}

describe('receipt ingest of MCP server and capability evidence', () => {
  it('stores a tool list’s server and a call’s contract as sent, and the chain verifies', async () => {
    const client = await registerGateway(api, 'gw-typed');
    const body = fixtureReceiptBody({
      id: 'gw-typed-r0',
      gateway: 'gw-typed',
      receivedAt: '2026-01-02T03:04:05.000Z',
      calls: ['read_file'],
    });
    const chain = chainOf([withTypedEvidence(body)]);
    const { stored, toolSet } = compactReceipt(chain[0] as Receipt);
    const { results } = await call(client, 'receipts.ingest', {
      params: { name: 'gw-typed' },
      body: { receipts: [stored], tool_sets: { [stored.tool_set_hash]: toolSet } },
    });
    expect(results).toEqual([{ id: 'gw-typed-r0', result: 'created' }]);
    const served = await call(api.operator, 'receipts.get', { params: { id: 'gw-typed-r0' } });
    expect(served.receipt).toEqual(chain[0]);
    expect(served.receipt.response?.hosted_tool_events[0]?.server).toBe('docs');
    expect(served.receipt.response?.tool_calls[0]?.capability).toBe('wardwright.computer_use.v1');
    const verification = await call(api.operator, 'receipts.verify', {
      params: { name: 'gw-typed' },
    });
    expect(verification).toMatchObject({ valid: true, checked: 1 });
  });
});
