import { ApiError } from '@toolgate/contract';
import {
  compactReceipt,
  type Receipt,
  type ReceiptBody,
  type ToolResultEvidence,
  type ToolSet,
} from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../testing/test-api.ts';
import { chainOf, fixtureReceiptBody } from './receipt-fixtures.ts';
import { call, registerGateway } from './receipts-testing.ts';

/**
 * A call released in one receipt and its result, carried by the receipt of the agent's next
 * request, are linked both ways at ingest (`receipt_tool_calls`) and served by
 * `GET …/receipts/{id}/tool-links`.
 */

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const HASH = `sha256:${'c'.repeat(64)}` as const;
const at = (second: number) => new Date(Date.UTC(2026, 0, 5, 10, 0, second)).toISOString();

function result(id: string, actionId: string | undefined, extra: Partial<ToolResultEvidence> = {}) {
  return {
    tool_call_id: id,
    ...(actionId !== undefined ? { action_id: actionId } : {}),
    result_hash: HASH,
    is_error: false,
    elapsed_ms: 1200,
    ...extra,
  } satisfies ToolResultEvidence;
}

async function ingest(gateway: string, bodies: ReceiptBody[]) {
  const client = await registerGateway(api, gateway);
  const toolSets: Record<string, ToolSet> = {};
  const receipts = chainOf(bodies).map((receipt: Receipt) => {
    const { stored, toolSet } = compactReceipt(receipt);
    toolSets[stored.tool_set_hash] = toolSet;
    return stored;
  });
  const { results } = await call(client, 'receipts.ingest', {
    params: { name: gateway },
    body: { receipts, tool_sets: toolSets },
  });
  expect(results.map((r) => r.result)).toEqual(bodies.map(() => 'created'));
}

const links = (id: string) => call(api.operator, 'receipts.toolLinks', { params: { id } });

describe('tool call ↔ result links', () => {
  it('links a call to the receipt of its result and back, by call id and action id', async () => {
    const gateway = 'links-gw';
    const turn1 = fixtureReceiptBody({
      id: 'links-turn-1',
      gateway,
      receivedAt: at(0),
      // call_0 is released; call_1 (a hidden tool) is blocked and can have no result.
      calls: ['read_file', 'create_pull_request'],
      tools: ['read_file', 'create_pull_request'],
    });
    const [released, blocked] = turn1.response?.tool_calls ?? [];
    expect(released?.policy_state).toBe('allowed');
    expect(blocked?.policy_state).toBe('blocked');
    const turn2: ReceiptBody = {
      ...fixtureReceiptBody({ id: 'links-turn-2', gateway, receivedAt: at(3) }),
      tool_results: [
        result('call_0', released?.action_id, { is_error: true }),
        // Same id, another action (another identity or other arguments): not its result.
        result('call_0', 'act_00000000000000000000000000000000'),
        result('call_1', blocked?.action_id),
        // The agent's conversation held no such call.
        result('call_9', undefined),
      ],
    };
    await ingest(gateway, [turn1, turn2]);

    const toResult = await links('links-turn-1');
    expect(toResult.items).toEqual([
      {
        toolCallId: 'call_0',
        side: 'call',
        receipt: 'links-turn-2',
        gateway,
        receivedAt: at(3),
      },
    ]);
    const toCall = await links('links-turn-2');
    expect(toCall.items).toEqual([
      {
        toolCallId: 'call_0',
        side: 'result',
        receipt: 'links-turn-1',
        gateway,
        receivedAt: at(0),
      },
    ]);
    // The stored receipt serves what the console shows next to the link.
    const { receipt } = await call(api.operator, 'receipts.get', {
      params: { id: 'links-turn-2' },
    });
    expect(receipt.tool_results?.[0]).toMatchObject({ is_error: true, elapsed_ms: 1200 });
  });

  it('ingests receipts with repeated or oversized ids without failing the batch', async () => {
    const gateway = 'links-hostile-gw';
    const body = fixtureReceiptBody({
      id: 'links-hostile-1',
      gateway,
      receivedAt: at(10),
      calls: ['read_file'],
    });
    const call0 = body.response?.tool_calls[0];
    if (!call0 || !body.response) throw new Error('expected a call');
    const repeated: ReceiptBody = {
      ...body,
      response: {
        ...body.response,
        tool_calls: [call0, call0, { ...call0, id: 'x'.repeat(5000) }],
      },
      tool_results: [result('r', 'act_a'), result('r', 'act_a'), result('y'.repeat(5000), 'act_b')],
    };
    await ingest(gateway, [repeated]);
    expect((await links('links-hostile-1')).items).toEqual([]);
  });

  it('answers 404 for a receipt that does not exist, and auditors may read links', async () => {
    const error = await links('no-such-receipt').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).httpStatus).toBe(404);
    const { client: auditor } = await api.identity('links-auditor', ['auditor']);
    const read = await call(auditor, 'receipts.toolLinks', { params: { id: 'links-turn-1' } });
    expect(read.items).toHaveLength(1);
  });
});
