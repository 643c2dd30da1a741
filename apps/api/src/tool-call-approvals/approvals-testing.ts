import { randomBytes } from 'node:crypto';
import type { ToolCallApprovalRequest } from '@toolgate/contract';
import type { ToolCallApprovalSpec } from '@toolgate/core';

/** Test support: approval requests as a gateway sends them. */

/** A fresh, valid action id (`act_` + 32 hex). */
export function newActionId(): string {
  return `act_${randomBytes(16).toString('hex')}`;
}

/** The body a gateway posts for a call withheld on `gateway`; `overrides` replace spec fields. */
export function approvalRequest(
  gateway: string,
  overrides: Partial<ToolCallApprovalSpec> = {},
): ToolCallApprovalRequest & { spec: ToolCallApprovalSpec } {
  return {
    spec: {
      actionId: newActionId(),
      tool: 'send_email',
      arguments: { to: 'someone@example.org', subject: 'Quarterly numbers' },
      argumentsHash: `sha256:${'ab'.repeat(32)}`,
      identity: { human: 'alice', session: 'sess-1', binding: 'verified' },
      gateway,
      receiptId: `rcpt_${randomBytes(8).toString('hex')}`,
      surface: 'openai-chat',
      rule: { policy: 'mail-guardrails', id: 'external-mail-needs-approval' },
      ttlSeconds: 3600,
      ...overrides,
    },
  };
}
