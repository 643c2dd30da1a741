import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalRequest } from '../../apps/api/src/tool-call-approvals/approvals-testing.ts';
import { registerGateway } from '../../apps/gateway/src/faults/control-plane.ts';
import { expectAccessible } from './support/axe.ts';
import {
  collectPageErrors,
  launchBrowser,
  screenshot,
  signedInContext,
} from './support/browser.ts';
import { type ConsoleStack, startConsoleStack } from './support/stack.ts';

/**
 * The Approvals page in a real browser on a real API: a gateway identity asks for approvals over
 * HTTP as a gateway does, the operator sees the pending count and approves one in the page, an
 * auditor sees the same approvals without any control to decide them.
 */

let stack: ConsoleStack;
let browser: Browser;
let gatewayToken: string;
let auditorToken: string;

/** Asks for an approval as the gateway `edge-approvals` does for a withheld call. */
async function requestApproval(tool: string): Promise<string> {
  const body = approvalRequest('edge-approvals', {
    tool,
    arguments: { to: 'partner@example.org', subject: `about ${tool}` },
  });
  const response = await fetch(
    `${stack.api.url}/apis/toolgate.dev/v1/toolcallapprovals/${body.spec.actionId}/request`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gatewayToken}` },
      body: JSON.stringify(body),
    },
  );
  expect(response.status).toBe(201);
  return body.spec.actionId;
}

async function openAs(token: string): Promise<{ page: Page; errors: string[] }> {
  const context = await signedInContext(browser, token);
  const page = await context.newPage();
  return { page, errors: collectPageErrors(page) };
}

beforeAll(async () => {
  [stack, browser] = await Promise.all([startConsoleStack(), launchBrowser()]);
  gatewayToken = await registerGateway(stack.api, 'edge-approvals', { env: 'e2e' });
  auditorToken = (await stack.api.identity('approvals-auditor', ['auditor'])).token;
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('the Approvals page', () => {
  it('shows the live pending count; an operator approves a call and sees the state change', async () => {
    const { page, errors } = await openAs(stack.api.operatorToken);
    await page.goto(`${stack.console.url}/approvals`);
    await page.getByText('No approvals yet').waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });

    // Requested while the page is open: the count and the row arrive without a reload.
    const mail = await requestApproval('send_email');
    await requestApproval('create_pull_request');
    await nav.getByText('2 pending').waitFor({ timeout: 10_000 });
    await page.getByRole('row', { name: /send_email/ }).waitFor();
    await expectAccessible(page, 'approvals');
    await screenshot(page, '30-approvals-pending');

    await page
      .getByRole('row', { name: /send_email/ })
      .getByRole('link')
      .click();
    await page.getByRole('heading', { name: 'Approval: send_email' }).waitFor();
    await page.getByText('"to": "partner@example.org"').waitFor();
    await page.getByRole('link', { name: /^rcpt_/ }).waitFor();
    await expectAccessible(page, 'approval detail');
    await page.getByLabel('Reason (optional)').fill('ticket OPS-42');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('approved by admin: ticket OPS-42').waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await nav.getByText('1 pending').waitFor({ timeout: 10_000 });
    await screenshot(page, '31-approval-approved');

    const stored = await stack.api.operator.call('toolCallApprovals.get', {
      params: { name: mail },
    });
    expect(stored.status?.decidedBy).toBe('admin');

    await nav.getByRole('link', { name: /Approvals/ }).click();
    await page.getByRole('button', { name: 'approved (1)' }).click();
    await page.waitForURL(/state=approved/);
    await page
      .getByRole('row', { name: /send_email/ })
      .getByText('approved')
      .waitFor();
    expect(await page.getByRole('row', { name: /create_pull_request/ }).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('shows an auditor the approvals read-only', async () => {
    const pending = await requestApproval('web_search');
    const { page, errors } = await openAs(auditorToken);
    await page.goto(`${stack.console.url}/approvals/${pending}`);
    await page.getByRole('heading', { name: 'Approval: web_search' }).waitFor();
    await page.getByText('not yet').waitFor();
    // Roles are known once whoami answered: the sign-out button is rendered with them.
    await page.getByText('auditor', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Deny' }).count()).toBe(0);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByText(/\d+ pending/)
      .waitFor();
    await screenshot(page, '32-approval-auditor');
    expect(errors).toEqual([]);
  });
});
