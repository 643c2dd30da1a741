import type { ToolCallApproval } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { ApprovalBook } from './approval-book.ts';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const NAME = `act_${'a'.repeat(32)}`;

function approval(
  binding: 'verified' | 'claimed' | 'unverified',
  condition: 'Approved' | 'Denied' | undefined,
  expiresAt = '2026-11-25T13:00:00Z',
): ToolCallApproval {
  return {
    apiVersion: 'toolgate.dev/v1',
    kind: 'ToolCallApproval',
    metadata: {
      name: NAME,
      resourceVersion: '1',
      generation: 1,
      uid: 'u',
      labels: {},
      annotations: {},
      creationTimestamp: '2026-11-25T11:00:00Z',
    },
    spec: {
      actionId: NAME,
      tool: 'send_email',
      arguments: { to: 'e@x.io' },
      argumentsHash: `sha256:${'0'.repeat(64)}`,
      identity: { human: 'alice', binding },
      gateway: 'gw',
      receiptId: 'r1',
      surface: 'openai-chat',
      rule: { policy: 'p', id: 'r' },
      ttlSeconds: 3600,
    },
    status: {
      conditions: condition
        ? [
            {
              type: condition,
              status: 'True',
              reason: `${condition}ByOperator`,
              message: `${condition} by olga: not to rivals`,
              lastTransitionTime: '2026-11-25T11:30:00Z',
            },
          ]
        : [],
      decidedBy: 'olga',
      expiresAt,
    },
  } as ToolCallApproval;
}

describe('ApprovalBook', () => {
  it('an approval given to a proven caller is not used by a request that only claims the name', () => {
    const book = new ApprovalBook(() => NOW);
    book.put(approval('verified', 'Approved'));
    expect(book.lookup(NAME, 'verified')?.state).toBe('approved');
    expect(book.lookup(NAME, 'claimed')).toBeUndefined();
    expect(book.lookup(NAME, 'unverified')).toBeUndefined();
  });

  it('an approval given to an unproven caller is used by any caller with the same names', () => {
    const book = new ApprovalBook(() => NOW);
    book.put(approval('unverified', 'Approved'));
    expect(book.lookup(NAME, 'unverified')?.state).toBe('approved');
    expect(book.lookup(NAME, 'verified')?.state).toBe('approved');
  });

  it('judges expiry by the clock, and says who denied and why', () => {
    const book = new ApprovalBook(() => NOW);
    book.put(approval('verified', 'Approved', '2026-11-25T11:59:59Z'));
    expect(book.lookup(NAME, 'verified')?.state).toBe('expired');
    book.prune();
    expect(book.size).toBe(0);
    book.put(approval('verified', 'Denied'));
    expect(book.lookup(NAME, 'verified')).toEqual({
      state: 'denied',
      decidedBy: 'olga',
      reason: 'not to rivals',
    });
    book.remove(NAME);
    expect(book.lookup(NAME, 'verified')).toBeUndefined();
  });
});
