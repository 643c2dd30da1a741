import type { HostedToolEvidence } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { receiptCapabilities } from './receipt-columns.ts';
import { chainOf, fixtureReceiptBody } from './receipt-fixtures.ts';

const AT = '2026-03-01T10:00:00.000Z';

function event(capability: string): HostedToolEvidence {
  return {
    capability,
    provider_type: 'server_tool_use:code_execution',
    name: 'code_execution',
    fidelity: 'provider_attested',
    policy_state: 'allowed',
  };
}

describe('receiptCapabilities', () => {
  it('lists the hosted tools’ contracts, then the events’, each once, in first-seen order', () => {
    const body = fixtureReceiptBody({ id: 'c-1', gateway: 'g', receivedAt: AT, webSearch: true });
    const response = body.response;
    if (!response) throw new Error('the fixture has no response');
    const [receipt] = chainOf([
      {
        ...body,
        response: {
          ...response,
          hosted_tool_events: [
            ...response.hosted_tool_events,
            event('wardwright.code_exec.v1'),
            event('wardwright.code_exec.v1'),
          ],
        },
      },
    ]);
    expect(receipt && receiptCapabilities(receipt)).toEqual([
      'wardwright.web_search.v1',
      'wardwright.code_exec.v1',
    ]);
  });

  it('is empty for function tools only', () => {
    const [receipt] = chainOf([
      fixtureReceiptBody({ id: 'c-2', gateway: 'g', receivedAt: AT, calls: ['read_file'] }),
    ]);
    expect(receipt && receiptCapabilities(receipt)).toEqual([]);
  });
});
