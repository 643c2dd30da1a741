import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { describe, expect, it } from 'vitest';
import { META, renderWithApi } from '../../../test/render.tsx';
import { ApprovalPage } from './approval-page.tsx';
import { PendingApprovalsBadge } from './approval-state.tsx';
import { ApprovalsPage } from './approvals-page.tsx';

const LIST = '/apis/toolgate.dev/v1/toolcallapprovals';
const hex = (c: string) => c.repeat(32);
const later = () => new Date(Date.now() + 3_600_000).toISOString();
const condition = (type: string, reason: string, message: string) => ({
  type,
  status: 'True',
  reason,
  message,
  lastTransitionTime: new Date().toISOString(),
});

function approval(id: string, tool: string, status: Record<string, unknown> = {}) {
  const name = `act_${hex(id)}`;
  return {
    apiVersion: 'toolgate.dev/v1',
    kind: 'ToolCallApproval',
    metadata: { ...META, name },
    spec: {
      actionId: name,
      tool,
      arguments: { to: 'someone@example.org', token: '[REDACTED]' },
      argumentsHash: `sha256:${'ab'.repeat(32)}`,
      identity: { human: 'alice', session: 'sess-1', binding: 'verified' },
      gateway: 'edge-a',
      receiptId: `rcpt_${id}`,
      surface: 'openai-chat',
      rule: { policy: 'mail-guardrails', id: 'external-mail-needs-approval' },
      ttlSeconds: 3600,
    },
    status: {
      conditions: [],
      requestedAt: new Date(Date.now() - 60_000).toISOString(),
      requests: 1,
      expiresAt: later(),
      ...status,
    },
  };
}
const list = (items: unknown[]) => ({
  apiVersion: 'toolgate.dev/v1',
  kind: 'ToolCallApprovalList',
  metadata: { resourceVersion: '9' },
  items,
});

const pending = approval('a', 'send_email');
const approved = approval('b', 'create_pull_request', {
  conditions: [condition('Approved', 'ApprovedByOperator', 'approved by bob')],
  decidedBy: 'bob',
  decidedAt: new Date().toISOString(),
});
const expired = approval('c', 'web_search', {
  expiresAt: new Date(Date.now() - 1000).toISOString(),
});

describe('ApprovalsPage', () => {
  it('lists approvals with their state, filters by state, and counts each', async () => {
    renderWithApi(<ApprovalsPage />, {
      route: '/approvals',
      responses: { [`GET ${LIST}`]: { body: list([pending, approved, expired]) } },
    });
    const row = await screen.findByRole('row', { name: /send_email/ });
    expect(within(row).getByText('pending')).toBeTruthy();
    expect(within(row).getByText('alice (session sess-1)')).toBeTruthy();
    expect(within(row).getByText('edge-a')).toBeTruthy();
    expect(
      within(screen.getByRole('row', { name: /web_search/ })).getByText('expired'),
    ).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'approved (1)' }));
    await waitFor(() => expect(screen.queryByRole('row', { name: /send_email/ })).toBeNull());
    expect(screen.getByRole('row', { name: /create_pull_request/ })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'denied (0)' }));
    expect(await screen.findByText('No denied approvals')).toBeTruthy();
  });

  it('reads the state from the URL: /approvals?state=pending (the Overview tile) shows only pending', async () => {
    renderWithApi(<ApprovalsPage />, {
      route: '/approvals?state=pending',
      responses: { [`GET ${LIST}`]: { body: list([pending, approved, expired]) } },
    });
    const row = await screen.findByRole('row', { name: /send_email/ });
    expect(within(row).getByText('pending')).toBeTruthy();
    expect(screen.queryByRole('row', { name: /create_pull_request/ })).toBeNull();
    expect(screen.queryByRole('row', { name: /web_search/ })).toBeNull();
    expect(screen.getByRole('button', { name: 'pending (1)' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
  });

  it('has an empty state and an error state', async () => {
    const { unmount } = renderWithApi(<ApprovalsPage />, {
      responses: { [`GET ${LIST}`]: { body: list([]) } },
    });
    expect(await screen.findByText('No approvals yet')).toBeTruthy();
    unmount();
    renderWithApi(<ApprovalsPage />, {
      responses: {
        [`GET ${LIST}`]: {
          status: 503,
          body: {
            kind: 'Status',
            code: 503,
            reason: 'ServiceUnavailable',
            message: 'database down',
          },
        },
      },
    });
    expect((await screen.findByRole('alert')).textContent).toContain('database down');
  });

  it('shows the pending count in a badge, and nothing when none is pending', async () => {
    const { unmount } = renderWithApi(<PendingApprovalsBadge />, {
      responses: { [`GET ${LIST}`]: { body: list([pending, approval('d', 'x'), approved]) } },
    });
    expect((await screen.findByTitle('2 pending')).textContent).toBe('2 pending');
    unmount();
    const { container } = renderWithApi(<PendingApprovalsBadge />, {
      responses: { [`GET ${LIST}`]: { body: list([approved]) } },
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(container.textContent).toBe('');
  });
});

function renderDetail(roles: Array<'operator' | 'auditor'>, item: unknown, extra = {}) {
  const name = (item as { metadata: { name: string } }).metadata.name;
  return renderWithApi(
    <Routes>
      <Route path="/approvals/:name" element={<ApprovalPage />} />
    </Routes>,
    {
      roles,
      route: `/approvals/${name}`,
      responses: { [`GET ${LIST}/${name}`]: { body: item }, ...extra },
    },
  );
}

describe('ApprovalPage', () => {
  it('shows the call in full: tool, arguments, identity, gateway, receipt, rule, times', async () => {
    renderDetail(['auditor'], pending);
    expect(await screen.findByRole('heading', { name: 'Approval: send_email' })).toBeTruthy();
    expect(screen.getByText(/"to": "someone@example.org"/)).toBeTruthy();
    expect(screen.getByText('verified')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'rcpt_a' }).getAttribute('href')).toBe(
      '/receipts/rcpt_a',
    );
    expect(screen.getByRole('link', { name: 'mail-guardrails' })).toBeTruthy();
    expect(screen.getByText('external-mail-needs-approval')).toBeTruthy();
    expect(screen.getByText('not yet')).toBeTruthy();
    // An auditor reads; only operators see the decision controls.
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull());
  });

  it('lets an operator approve with a reason', async () => {
    const name = pending.metadata.name;
    const { calls } = renderDetail(['operator'], pending, {
      [`PUT ${LIST}/${name}/approval`]: { body: approved },
    });
    fireEvent.change(await screen.findByLabelText('Reason (optional)'), {
      target: { value: 'ticket OPS-42' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(calls).toContain(`PUT ${LIST}/${name}/approval`));
  });

  it('shows why a decision failed (someone else was first)', async () => {
    const name = pending.metadata.name;
    renderDetail(['operator'], pending, {
      [`PUT ${LIST}/${name}/approval`]: {
        status: 409,
        body: {
          kind: 'Status',
          code: 409,
          reason: 'Conflict',
          message: `Operation cannot be fulfilled on ToolCallApproval "${name}": already denied by bob`,
        },
      },
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Deny' }));
    expect((await screen.findByRole('alert')).textContent).toContain('already denied by bob');
  });

  it('offers no decision on an approval that is not pending', async () => {
    renderDetail(['operator'], approved);
    expect(await screen.findByText(/approved by bob/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
  });
});
