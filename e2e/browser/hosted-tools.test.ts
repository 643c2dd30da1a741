import { ingestBatchOf, type ReceiptBody } from '@toolgate/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainOf, fixtureReceiptBody } from '../../apps/api/src/receipts/receipt-fixtures.ts';
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
 * Hosted tools in a real browser on a real API: the Hosted tools list (empty, then the tool an
 * operator applied) and its detail page, as an operator and as an auditor; and the receipt page
 * of a request whose tool loop ran two hosted rounds and hit its budget, drawn as a timeline.
 */

let stack: ConsoleStack;
let browser: Browser;
let auditorToken: string;

const hash = (c: string) => `sha256:${c.repeat(64)}`;

async function openAs(token: string): Promise<{ page: Page; errors: string[] }> {
  const context = await signedInContext(browser, token);
  const page = await context.newPage();
  return { page, errors: collectPageErrors(page) };
}

beforeAll(async () => {
  [stack, browser] = await Promise.all([startConsoleStack(), launchBrowser()]);
  auditorToken = (await stack.api.identity('hosted-auditor', ['auditor'])).token;
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('the Hosted tools pages', () => {
  it('lists the tools an operator applied and shows one in full', async () => {
    const { page, errors } = await openAs(stack.api.operatorToken);
    await page.goto(`${stack.console.url}/hosted-tools`);
    await page.getByText('No hosted tools').waitFor();
    await expectAccessible(page, 'hosted tools empty');

    await stack.api.operator.call('hostedTools.create', {
      body: {
        apiVersion: 'toolgate.dev/v1',
        kind: 'HostedTool',
        metadata: { name: 'approved-web-search' },
        spec: {
          tool: {
            name: 'approved_web_search',
            description: 'Search the web through the approved backend.',
            parameters: { type: 'object', properties: { q: { type: 'string' } } },
          },
          endpoint: {
            url: 'https://search.internal.example/v1/search',
            headers: [{ name: 'Authorization', secretRef: { env: 'SEARCH_API_TOKEN' } }],
            timeout: '5s',
          },
          redact: ['debug.token'],
        },
      } as never,
    });
    // Reached from the navigation, as a person would.
    await page.goto(`${stack.console.url}/`);
    await page.getByRole('link', { name: 'Hosted tools' }).first().click();
    const row = page.getByRole('row', { name: /approved-web-search/ });
    await row.getByText('search.internal.example').waitFor();
    expect(await row.textContent()).toContain('5s');
    await expectAccessible(page, 'hosted tools');
    await screenshot(page, '45-hosted-tools');

    await row.getByRole('link', { name: 'approved-web-search' }).click();
    await page.getByRole('heading', { name: 'Hosted tool: approved-web-search' }).waitFor();
    await page.getByText("from the gateway's $SEARCH_API_TOKEN").waitFor();
    await page.getByText('debug.token').waitFor();
    await expectAccessible(page, 'hosted tool');
    await screenshot(page, '46-hosted-tool');
    expect(errors).toEqual([]);
  });

  it('shows an auditor the same', async () => {
    const { page, errors } = await openAs(auditorToken);
    await page.goto(`${stack.console.url}/hosted-tools/approved-web-search`);
    await page.getByRole('heading', { name: 'Hosted tool: approved-web-search' }).waitFor();
    await page.getByText('POST https://search.internal.example/v1/search').waitFor();
    expect(errors).toEqual([]);
  });
});

describe('the receipt of a request with hosted rounds', () => {
  it('draws the rounds as a timeline with each call and the budget that stopped the loop', async () => {
    const token = await registerGateway(stack.api, 'edge-hosted', { env: 'e2e' });
    const body: ReceiptBody = {
      ...fixtureReceiptBody({
        id: 'rcpt-hosted-1',
        gateway: 'edge-hosted',
        receivedAt: new Date(Date.UTC(2026, 3, 1, 9)).toISOString(),
      }),
      hosted: {
        rounds: [
          {
            round: 1,
            started_ms: 380,
            duration_ms: 2,
            upstream_ms: 910,
            usage: { input_tokens: 1840, output_tokens: 35 },
            calls: [
              {
                id: 'call_t1',
                name: 'tool_info',
                tool: 'tool_info',
                executed_by: 'wardwright',
                fidelity: 'emulated',
                arguments_hash: hash('1'),
                result_hash: hash('2'),
                is_error: false,
                outcome: 'ok',
                duration_ms: 1.5,
              },
            ],
          },
          {
            round: 2,
            started_ms: 1295,
            duration_ms: 5004,
            upstream_ms: 700,
            calls: [
              {
                id: 'call_s1',
                name: 'approved_web_search',
                tool: 'approved-web-search',
                executed_by: 'wardwright',
                fidelity: 'emulated',
                arguments_hash: hash('3'),
                result_hash: hash('4'),
                is_error: false,
                outcome: 'ok',
                status: 200,
                duration_ms: 812,
                redacted_paths: ['debug.token'],
              },
              {
                id: 'call_s2',
                name: 'approved_web_search',
                tool: 'approved-web-search',
                executed_by: 'wardwright',
                fidelity: 'emulated',
                arguments_hash: hash('5'),
                is_error: true,
                outcome: 'timeout',
                duration_ms: 5000,
              },
            ],
          },
        ],
        budget: { max_calls: 3, max_rounds: 2, max_added_latency_ms: 20_000 },
        exhausted: 'max_rounds',
      },
    };
    const response = await fetch(
      `${stack.api.url}/apis/toolgate.dev/v1/gateways/edge-hosted/receipts`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(ingestBatchOf(chainOf([body]))),
      },
    );
    expect(response.status, await response.clone().text()).toBe(200);

    const { page, errors } = await openAs(auditorToken);
    await page.goto(`${stack.console.url}/receipts/rcpt-hosted-1`);
    const section = page.getByRole('region', { name: 'Hosted rounds (2)' });
    const timeline = section.getByRole('list', { name: 'Hosted rounds timeline' });
    await timeline.waitFor();
    const rounds = timeline.getByRole('listitem');
    expect(await rounds.count()).toBe(2);
    expect(await rounds.nth(0).textContent()).toContain('tokens 1840 in / 35 out');
    const timedOut = rounds.nth(1).getByRole('row', { name: /timeout/ });
    await timedOut.getByText('nothing came back').waitFor();
    await rounds.nth(1).getByText('debug.token').waitFor();
    await section.getByText('exhausted: max_rounds').waitFor();
    await expectAccessible(page, 'receipt hosted rounds');
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, '47-receipt-hosted-rounds');
    expect(errors).toEqual([]);
  });
});
