import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@toolgate/contract';
import { until } from '@toolgate/core/testing';
import { createMockProvider, type MockProvider } from '@toolgate/mock-provider';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hideRule,
  openAITools,
  policyObject,
  registerGateway,
} from '../../apps/gateway/src/faults/control-plane.ts';
import {
  type GatewayProcess,
  killAllGateways,
  startGateway,
} from '../../apps/gateway/src/faults/processes.ts';
import { expectAccessible } from './support/axe.ts';
import {
  collectPageErrors,
  launchBrowser,
  screenshot,
  signedInContext,
} from './support/browser.ts';
import { type ConsoleStack, startConsoleStack } from './support/stack.ts';

/**
 * Receipts, fidelity, gateways, identities and the audit log in a real browser, on real data: a
 * gateway process mediates requests to the mock provider under a policy from the API and ships
 * its receipts; a second gateway reports a NACK the way a gateway does, through the API.
 */

const LABELS = { env: 'e2e' };
/** What the agent passes through to the (mock) provider; built, never a key-shaped literal. */
const UPSTREAM_KEY = ['sk', 'e2e-agent'].join('-');
let stack: ConsoleStack;
let browser: Browser;
let mock: MockProvider;
let gateway: GatewayProcess;
let dataDir: string;
let page: Page;
let pageErrors: string[];

async function send(tools: string[], user: string): Promise<void> {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${UPSTREAM_KEY}`,
      'x-user-id': user,
    },
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: `hello from ${user}` }],
      tools: openAITools(tools),
    }),
  });
  expect(response.status).toBe(200);
  await response.body?.cancel();
}

type ToolCallMessage = { role: string; tool_calls?: Array<{ id: string }> };

/** One chat completion through the gateway with the `search_code` tool (answer unread). */
async function chat(messages: unknown[]): Promise<Response> {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${UPSTREAM_KEY}`,
      'x-user-id': 'dev-1',
    },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages, tools: openAITools(['search_code']) }),
  });
  expect(response.status).toBe(200);
  return response;
}

beforeAll(async () => {
  [stack, browser, mock] = await Promise.all([
    startConsoleStack(),
    launchBrowser(),
    createMockProvider(),
  ]);
  const api = stack.api;
  const token = await registerGateway(api, 'edge-1', LABELS);
  await api.operator.call('mediationPolicies.create', {
    body: policyObject('guardrails', LABELS, [
      hideRule('hide-deletes', 'delete_branch'),
      {
        id: 'annotate-prs',
        action: 'augment',
        match: { name: 'create_pull_request' },
        description_append: 'Only against branches you created.',
      },
    ]),
  });
  dataDir = await mkdtemp(join(tmpdir(), 'toolgate-e2e-console-'));
  gateway = await startGateway({
    name: 'edge-1',
    apiUrl: api.url,
    apiToken: token,
    upstreamUrl: mock.url,
    dataDir,
  });
  for (const user of ['dev-1', 'dev-2', 'dev-3']) {
    await send(['search_code', 'create_pull_request', 'delete_branch'], user);
  }
  await send(['read_file'], 'dev-1');
  await until(
    async () =>
      (await api.operator.call('receipts.list', { query: { gateway: 'edge-1' } })).items.length >=
      4,
    20_000,
    'the gateway shipped 4 receipts',
  );

  // A second gateway that refused a bundle reports it like any gateway: through its own identity.
  const nackToken = await registerGateway(api, 'edge-canary', { env: 'canary' });
  await createClient({ baseUrl: api.url, token: nackToken }).call('gateways.replaceStatus', {
    params: { name: 'edge-canary' },
    body: {
      status: {
        appliedBundleETag: `sha256:${'ab'.repeat(32)}`,
        lastSyncTime: new Date().toISOString(),
        spoolDepth: 7,
        version: '0.1.0',
        conditions: [
          {
            type: 'Synced',
            status: 'False',
            reason: 'BundleRejected',
            message: 'policies[0].spec.rules[0].match.name: must not be empty',
            lastTransitionTime: new Date().toISOString(),
          },
        ],
      },
    },
  });
  await registerGateway(api, 'edge-never', { env: 'lab' });

  const context = await signedInContext(browser, api.operatorToken);
  page = await context.newPage();
  pageErrors = collectPageErrors(page);
});

afterAll(async () => {
  await killAllGateways();
  await browser?.close();
  await Promise.all([stack?.close(), mock?.close()]);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('console pages on real data', () => {
  it('filters receipts by tool, opens one and shows the schema diff of the changed tool', async () => {
    await page.goto(`${stack.console.url}/receipts`);
    await page.getByText('4 receipts in total').waitFor();
    await expectAccessible(page, 'receipts');
    await screenshot(page, '11-receipts');

    await page.getByLabel('Tool (exact)').fill('create_pull_request');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/tool=create_pull_request/);
    await page.getByText('3 receipts match').waitFor();
    // The filtered view is a URL one can share: a fresh load shows the same rows.
    await page.reload();
    await page.getByText('3 receipts match').waitFor();
    expect(await page.getByLabel('Tool (exact)').inputValue()).toBe('create_pull_request');
    await screenshot(page, '12-receipts-filtered');

    await page.locator('.receipt-row a').first().click();
    await page.getByRole('heading', { name: /^Receipt / }).waitFor();
    const diff = page.getByRole('article', { name: 'Schema diff of create_pull_request' });
    await diff.locator('.cm-mergeView').waitFor();
    await diff.getByText('Only against branches you created.').first().waitFor();
    await page.getByRole('article', { name: 'Schema diff of delete_branch' }).waitFor();
    await page.getByText(/intact · \d+ receipts checked/).waitFor();
    await page
      .getByRole('list', { name: 'Provider-visible tools' })
      .getByText('search_code', { exact: true })
      .waitFor();
    expect(
      await page
        .getByRole('list', { name: 'Provider-visible tools' })
        .getByText('delete_branch', { exact: true })
        .count(),
    ).toBe(0);
    await expectAccessible(page, 'receipt detail');
    await screenshot(page, '13-receipt-detail');
  });

  it('previews a policy draft against a recorded receipt', async () => {
    const receiptId = (
      await stack.api.operator.call('receipts.list', { query: { tool: 'delete_branch', limit: 1 } })
    ).items[0]?.id as string;
    await page.goto(`${stack.console.url}/policies/guardrails`);
    await page.getByRole('button', { name: 'Run preview' }).waitFor();
    await page.getByLabel('a recorded receipt').check();
    // The picker: narrowed by a tool name, the receipt chosen from the list (no id to type).
    await page.getByLabel('Find receipts by tool name').fill('delete_branch');
    await page.locator(`input[name="preview-receipt"][value="${receiptId}"]`).check();
    await page.getByRole('button', { name: 'Run preview' }).click();
    const after = page.getByRole('list', { name: 'Tools after' });
    await after.getByText('create_pull_request', { exact: true }).waitFor();
    expect(await after.getByText('delete_branch', { exact: true }).count()).toBe(0);
    await screenshot(page, '14-policy-preview-from-receipt');
  });

  it('shows the fidelity matrix with proofs and gaps on click', async () => {
    await page.goto(`${stack.console.url}/fidelity`);
    const cell = page.getByRole('button', { name: /^Web search on .*Anthropic/i }).first();
    await cell.waitFor();
    expect(await page.locator('.fidelity-cell').count()).toBeGreaterThanOrEqual(12);
    await cell.click();
    await page.waitForURL(/contract=wardwright\.web_search\.v1/);
    await page.getByRole('heading', { name: /^Gaps \(\d+\)$/ }).waitFor();
    await page.getByRole('heading', { name: 'Proofs: what is observable' }).waitFor();
    await expectAccessible(page, 'fidelity');
    await screenshot(page, '15-fidelity');
    expect(
      await page
        .getByRole('link', { name: /^Receipts using this: Web search on Anthropic/ })
        .getAttribute('href'),
    ).toBe('/receipts?contract=wardwright.web_search.v1&surface=anthropic-messages');

    // One request with OpenAI's hosted web search: the only receipt of that cell.
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${UPSTREAM_KEY}`,
        'x-user-id': 'dev-search',
      },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'mock: {"hosted":"web_search"}' }],
        tools: openAITools(['search_code']),
        web_search_options: {},
      }),
    });
    expect(response.status).toBe(200);
    const searched = response.headers.get('x-toolgate-receipt-id') as string;
    await response.body?.cancel();
    await until(
      async () =>
        (
          await stack.api.operator.call('receipts.list', {
            query: { contract: 'wardwright.web_search.v1' },
          })
        ).items.length === 1,
      20_000,
      'the gateway shipped the web search receipt',
    );
    await page.getByRole('button', { name: /^Web search on OpenAI Chat Completions/ }).click();
    await page
      .getByRole('link', { name: /^Receipts using this: Web search on OpenAI Chat Completions/ })
      .click();
    await page.waitForURL(/\/receipts\?contract=wardwright\.web_search\.v1&surface=openai-chat$/);
    await page.getByText('1 receipt match').waitFor();
    await page.locator(`.receipt-row a[href="/receipts/${searched}"]`).waitFor();
    expect(await page.locator('.receipt-row').count()).toBe(1);
    expect(await page.getByLabel('Capability contract').inputValue()).toBe(
      'wardwright.web_search.v1',
    );
  });

  it('shows the fleet: a synced gateway, a NACKed one with its error, a stale one', async () => {
    await page.goto(`${stack.console.url}/gateways`);
    const synced = page.getByRole('row', { name: /edge-1/ });
    await synced.getByText('in sync').waitFor();
    const nacked = page.getByRole('row', { name: /edge-canary/ });
    await nacked.getByText('NACK').waitFor();
    await nacked.getByText('policies[0].spec.rules[0].match.name: must not be empty').waitFor();
    await nacked.getByText('7', { exact: true }).waitFor();
    const never = page.getByRole('row', { name: /edge-never/ });
    await never.getByText('never synced').waitFor();
    await never.getByText('stale').waitFor();
    expect(await never.getAttribute('class')).toContain('row-stale');
    await expectAccessible(page, 'gateways');
    await screenshot(page, '16-gateways');
  });

  it('follows a tool call to the receipt of its result and back', async () => {
    const user = {
      role: 'user',
      content: 'mock: {"call":"search_code","arguments":{"q":"retry"}}',
    };
    const turn1 = await chat([user]);
    const message = ((await turn1.json()) as { choices: Array<{ message: ToolCallMessage }> })
      .choices[0]?.message;
    const callId = message?.tool_calls?.[0]?.id ?? '';
    expect(callId).not.toBe('');
    const turn2 = await chat([
      user,
      message,
      { role: 'tool', tool_call_id: callId, content: '{"hits": 1}' },
    ]);
    await turn2.body?.cancel();
    const [first, second] = [turn1, turn2].map((r) => r.headers.get('x-toolgate-receipt-id'));
    await until(
      async () =>
        (await stack.api.operator.call('receipts.list', { query: { gateway: 'edge-1' } })).items
          .length >= 6,
      20_000,
      'the gateway shipped both turns',
    );
    await page.goto(`${stack.console.url}/receipts/${first}`);
    await page
      .getByRole('table', { name: 'Tool calls' })
      .getByRole('link', { name: 'result →' })
      .click();
    await page.waitForURL(new RegExp(`/receipts/${second}$`));
    const results = page.getByRole('table', { name: 'Tool results' });
    const row = results.getByRole('row', { name: new RegExp(callId) });
    await row.getByText('ok', { exact: true }).waitFor();
    expect(await row.getByText('unknown').count()).toBe(0);
    await expectAccessible(page, 'receipt with tool results');
    await screenshot(page, '16b-receipt-tool-results');
    await row.getByRole('link', { name: '← call' }).click();
    await page.waitForURL(new RegExp(`/receipts/${first}$`));
  });

  it('creates an identity, issues a token shown once, revokes it; the audit log records it', async () => {
    await page.goto(`${stack.console.url}/identities`);
    await page.getByRole('row', { name: /admin/ }).first().waitFor();
    const form = page.getByRole('form', { name: 'Create an identity' });
    await form.getByLabel('Name').fill('ci-bot');
    await form.getByLabel('Type').selectOption('service');
    await form.getByLabel('auditor').uncheck();
    await form.getByLabel('agent').check();
    await form.getByRole('button', { name: 'Create identity' }).click();
    await page
      .getByRole('row', { name: /ci-bot/ })
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'Tokens of ci-bot' }).click();
    await page
      .getByRole('form', { name: 'Issue a token for ci-bot' })
      .getByLabel('Description')
      .fill('CI pipeline');
    await page.getByRole('button', { name: 'Issue token' }).click();
    const secret = page.locator('.secret-value');
    await secret.waitFor();
    const token = (await secret.textContent()) ?? '';
    expect(token.length).toBeGreaterThan(20);
    const who = await createClient({ baseUrl: stack.api.url, token }).call('tokens.whoami');
    expect(who.identity).toBe('ci-bot');
    await expectAccessible(page, 'identities with a new token');
    await screenshot(page, '17-identities-token-issued');
    await page.getByRole('button', { name: 'Done' }).click();
    await secret.waitFor({ state: 'detached' });

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: /^Revoke token / }).click();
    await page.getByRole('table', { name: 'Tokens of ci-bot' }).getByText('revoked').waitFor();
    const revoked = await fetch(`${stack.api.url}/apis/toolgate.dev/v1/whoami`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(revoked.status).toBe(401);

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Audit log' })
      .click();
    await page
      .getByRole('row', { name: /Identity\/ci-bot/ })
      .first()
      .waitFor();
    await page.getByLabel('Name').fill('guardrails');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/name=guardrails/);
    await page
      .getByRole('row', { name: /MediationPolicy\/guardrails/ })
      .first()
      .waitFor();
    await expectAccessible(page, 'audit log');
    await screenshot(page, '18-audit-log');
    expect(pageErrors).toEqual([]);
  });
});
