import { createClient } from '@toolgate/contract';
import { ingestBatchOf, type ReceiptBody } from '@toolgate/core';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainOf, fixtureReceiptBody } from '../../apps/api/src/receipts/receipt-fixtures.ts';
import { registerGateway } from '../../apps/gateway/src/faults/control-plane.ts';
import { expectAccessible } from './support/axe.ts';
import {
  collectPageErrors,
  inEachColorScheme,
  launchBrowser,
  screenshot,
  signedInContext,
} from './support/browser.ts';
import { type ConsoleStack, startConsoleStack } from './support/stack.ts';

/**
 * The Overview (the landing page) in Chromium on a real API: a gateway ships an hour of
 * receipts (ok, errors, a hidden tool's call blocked, a call waiting for approval) through the
 * ingest route as a gateway does; the page charts them, links into the receipts list, and fits
 * a desktop and a phone screen.
 */

let stack: ConsoleStack;
let browser: Browser;

/** A call of `body` deferred for approval by `guardrails/ask-first`. */
function awaitingApproval(body: ReceiptBody): ReceiptBody {
  const response = body.response;
  const call = response?.tool_calls[0];
  if (!response || !call) throw new Error('the fixture has no call');
  return {
    ...body,
    response: {
      ...response,
      tool_calls: [
        {
          ...call,
          policy_state: 'deferred',
          reason: 'rule:ask-first',
          decision: {
            outcome: 'approval_required',
            rule: 'ask-first',
            policy: 'guardrails',
            approval: call.action_id,
          },
        },
      ],
    },
  };
}

beforeAll(async () => {
  [stack, browser] = await Promise.all([startConsoleStack(), launchBrowser()]);
  const token = await registerGateway(stack.api, 'edge-overview', { env: 'e2e' });
  await registerGateway(stack.api, 'edge-silent', { env: 'lab' });
  const now = Date.now();
  const bodies = Array.from({ length: 24 }, (_, i) => {
    const body = fixtureReceiptBody({
      id: `overview-${i}`,
      gateway: 'edge-overview',
      receivedAt: new Date(now - (50 - i * 2) * 60_000).toISOString(),
      tools: ['read_file', 'search_code', 'create_pull_request', 'run_tests'],
      calls: i % 6 === 0 ? ['create_pull_request'] : i % 3 === 0 ? ['run_tests'] : ['read_file'],
      status: i % 7 === 3 ? 502 : 200,
    });
    const timed = {
      ...body,
      latency_ms: { total: 300 + i * 10, mediation: 0.2 + i / 20, upstream: 280 + i * 10 },
    };
    return i % 6 === 3 ? awaitingApproval(timed) : timed;
  });
  await createClient({ baseUrl: stack.api.url, token }).call('receipts.ingest', {
    params: { name: 'edge-overview' },
    body: ingestBatchOf(chainOf(bodies)),
  });
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function open(viewport: { width: number; height: number }, path = '/') {
  const context = await signedInContext(browser, stack.api.operatorToken, { viewport });
  const page = await context.newPage();
  const errors = collectPageErrors(page);
  await page.goto(`${stack.console.url}${path}`);
  return { page, errors };
}

/**
 * Clicks a bar's link and waits for the receipts page it opens. The Overview re-reads its range
 * every 10 s and redraws its bars, so on a loaded machine a click can land on a link just being
 * replaced; it is clicked again then (never once the page has gone where it should).
 */
async function followLink(page: Page, link: Locator, url: RegExp): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await link.click();
    try {
      await page.waitForURL(url, { timeout: 10_000 });
      return;
    } catch (error) {
      if (url.test(page.url())) return;
      if (attempt === 3) throw error;
    }
  }
}

/** uPlot has drawn the three charts (its canvas in each). */
async function chartsDrawn(page: Page): Promise<void> {
  await page.locator('.chart-canvas canvas').nth(2).waitFor();
}

/** The `--chart-ok` colour as the page resolves it, if more than 20 canvas pixels have it. */
const OK_COLOUR_DRAWN = `(() => {
  const canvas = document.querySelector('.chart-canvas canvas');
  const probe = document.createElement('span');
  probe.style.color = 'var(--chart-ok)';
  document.body.appendChild(probe);
  const colour = getComputedStyle(probe).color;
  probe.remove();
  const [r, g, b] = (colour.match(/\\d+/g) || []).map(Number);
  const pixels = canvas && canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
  let count = 0;
  for (let i = 0; pixels && i < pixels.data.length; i += 4) {
    if (pixels.data[i] === r && pixels.data[i + 1] === g && pixels.data[i + 2] === b) count++;
  }
  return count > 20 ? colour : false;
})()`;

async function horizontalOverflow(page: Page): Promise<number> {
  return (await page.evaluate(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  )) as number;
}

describe('the Overview page', () => {
  it('is the landing page: totals, charts, rules, tools and gateway sync at 1440×900', async () => {
    const { page, errors } = await open({ width: 1440, height: 900 }, '/?range=hour');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const totals = page.getByRole('list', { name: 'Totals' });
    await totals.getByRole('link', { name: '24' }).waitFor();
    await chartsDrawn(page);
    await page
      .getByRole('list', { name: 'Blocked and withheld calls by rule' })
      .getByRole('link', { name: /guardrails\/ask-first/ })
      .waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').first().textContent()).toBe('Overview');
    expect(await page.getByRole('row', { name: /edge-silent/ }).textContent()).toContain('stale');
    await expectAccessible(page, 'overview');
    await screenshot(page, '05-overview');
    expect(errors).toEqual([]);
  });

  it("draws the charts in the theme's own colours, redrawn when the theme changes", async () => {
    const { page } = await open({ width: 1440, height: 900 }, '/?range=hour');
    await chartsDrawn(page);
    const seen: Record<string, string> = {};
    await inEachColorScheme(page, async (scheme) => {
      // The ok bars' colour as the page resolves it now, once enough canvas pixels have it (a
      // string: the test has no DOM types, and page.evaluate is not subject to the page's CSP).
      let colour: string | false = false;
      await expect
        .poll(
          async () => {
            colour = (await page.evaluate(OK_COLOUR_DRAWN)) as string | false;
            return colour;
          },
          { timeout: 10_000 },
        )
        .toBeTruthy();
      seen[scheme] = String(colour);
    });
    expect(seen.light).toBeDefined();
    expect(seen.dark).toBeDefined();
    expect(seen.dark).not.toBe(seen.light);
  });

  it('opens the receipts behind a bar and behind a bucket of the requests chart', async () => {
    const { page } = await open({ width: 1440, height: 900 }, '/?range=hour');
    await followLink(
      page,
      page.getByRole('list', { name: 'Top tools called' }).getByRole('link', { name: /read_file/ }),
      /\/receipts\?.*tool=read_file/,
    );
    await page.getByText(/receipts? match/).waitFor();

    // A call-time rule's bar: the four requests whose call waits for approval.
    await page.goto(`${stack.console.url}/?range=hour`);
    await followLink(
      page,
      page
        .getByRole('list', { name: 'Blocked and withheld calls by rule' })
        .getByRole('link', { name: /guardrails\/ask-first/ }),
      /\/receipts\?.*rule=guardrails%2Fask-first/,
    );
    await page.getByText('4 receipts match').waitFor();

    await page.goto(`${stack.console.url}/?range=hour`);
    await chartsDrawn(page);
    const plot = page.locator('.chart-canvas .u-over').first();
    const box = await plot.boundingBox();
    if (!box) throw new Error('the requests chart has no plot area');
    await page.mouse.move(box.x + box.width - 4, box.y + box.height / 2);
    await page.mouse.click(box.x + box.width - 4, box.y + box.height / 2);
    await page.waitForURL(/\/receipts\?since=.*until=/);
  });

  it('fits a phone (390×844) without horizontal scrolling', async () => {
    const { page, errors } = await open({ width: 390, height: 844 }, '/?range=hour');
    await page.getByRole('list', { name: 'Totals' }).getByRole('link', { name: '24' }).waitFor();
    await chartsDrawn(page);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await expectAccessible(page, 'overview (phone)');
    await screenshot(page, '05-overview-phone');
    expect(errors).toEqual([]);
  });

  it('has a real empty state for a range without traffic, and checks a custom range', async () => {
    const from = new Date(Date.now() - 30 * 86_400_000).toISOString();
    const to = new Date(Date.now() - 29 * 86_400_000).toISOString();
    const { page } = await open(
      { width: 1440, height: 900 },
      `/?range=custom&from=${from}&to=${to}`,
    );
    await page.getByText('No traffic in this range').waitFor();
    await page.getByRole('row', { name: /edge-overview/ }).waitFor();
    await screenshot(page, '05-overview-empty');

    await page.getByLabel('From', { exact: true }).fill('2026-03-02T10:00');
    await page.getByLabel('To', { exact: true }).fill('2026-03-01T10:00');
    await page.getByRole('button', { name: 'Apply range' }).click();
    await page.getByText('The end must be after the start.').waitFor();
  });
});
