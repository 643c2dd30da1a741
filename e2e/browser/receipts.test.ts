import { ingestBatchOf } from '@toolgate/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chainOf,
  FIXTURE_POLICIES,
  fixtureReceiptBody,
} from '../../apps/api/src/receipts/receipt-fixtures.ts';
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
 * The receipts list and a receipt page in Chromium on a real API (#22): the empty state before
 * any traffic, then receipts a gateway shipped over HTTP, read at desktop and phone widths: rows
 * show the tools called and the blocked one, the count, the filters (substring, quick range,
 * range validation, suggestions), the export, and the headline of a blocked receipt.
 */

const VIEWPORTS = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

let stack: ConsoleStack;
let browser: Browser;

async function open(viewport: { width: number; height: number }) {
  const context = await signedInContext(browser, stack.api.operatorToken, { viewport });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
    origin: stack.console.url,
  });
  const page = await context.newPage();
  return { page, errors: collectPageErrors(page) };
}

/**
 * What of the page's own content runs past the viewport's right edge (so makes the page scroll
 * sideways): elements inside `main` that no scrolling or clipping box of theirs contains. A table
 * scrolling inside its own box is fine. The top bar is left out: the responsive nav is another
 * item of #22.
 */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const width = document.documentElement.clientWidth;
    const main = document.querySelector('main');
    if (!main) return ['no main element'];
    const clipped = (el) => {
      for (let up = el.parentElement; up && up !== main.parentElement; up = up.parentElement) {
        const overflowX = getComputedStyle(up).overflowX;
        if (overflowX !== 'visible' && up.getBoundingClientRect().right <= width + 1) return true;
      }
      return false;
    };
    return Array.from(main.querySelectorAll('*'))
      .filter((el) => el.getBoundingClientRect().right > width + 1 && !clipped(el))
      .map((el) => el.tagName.toLowerCase() + '.' + el.className)
      .slice(0, 10);
  })()`);
}

/** Receipts 00 and 08 offer no `create_pull_request` (nor call it): a search for it skips them. */
const WITHOUT_PRS = new Set([0, 8]);

/**
 * 12 receipts of gateway `edge-r`, an hour apart; some call `create_pull_request` (hidden), two
 * never offered it.
 */
async function shipReceipts(): Promise<void> {
  for (const policy of FIXTURE_POLICIES) {
    await stack.api.operator.call('mediationPolicies.create', {
      body: {
        apiVersion: 'toolgate.dev/v1',
        kind: 'MediationPolicy',
        metadata: { name: policy.name },
        spec: policy.spec as never,
      },
    });
  }
  const token = await registerGateway(stack.api, 'edge-r', { env: 'e2e' });
  const base = Date.UTC(2026, 2, 1, 9);
  const calls = [['read_file'], ['create_pull_request'], []];
  const bodies = Array.from({ length: 12 }, (_, i) =>
    fixtureReceiptBody({
      id: `rcpt-e2e-${String(i).padStart(2, '0')}`,
      gateway: 'edge-r',
      receivedAt: new Date(base + i * 3_600_000).toISOString(),
      tools: WITHOUT_PRS.has(i)
        ? ['search_code', 'read_file', 'delete_branch']
        : ['search_code', 'read_file', 'create_pull_request', 'delete_branch'],
      calls: calls[i % 3] as string[],
      identity: { human: i % 2 === 0 ? 'alice' : 'bob' },
      status: i === 11 ? 502 : 200,
    }),
  );
  const response = await fetch(`${stack.api.url}/apis/toolgate.dev/v1/gateways/edge-r/receipts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(ingestBatchOf(chainOf(bodies))),
  });
  expect(response.status).toBe(200);
}

beforeAll(async () => {
  [stack, browser] = await Promise.all([startConsoleStack(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('the receipts pages', () => {
  it('says there is no traffic yet before any gateway sent a receipt', async () => {
    const { page, errors } = await open(VIEWPORTS[0]);
    await page.goto(`${stack.console.url}/receipts`);
    await page.getByText('No traffic yet').waitFor();
    await expectAccessible(page, 'receipts, no traffic');
    await screenshot(page, '40-receipts-no-traffic');
    expect(errors).toEqual([]);
    await page.context().close();
    await shipReceipts();
  });

  for (const viewport of VIEWPORTS) {
    it(`lists what was called and blocked, filters, counts and exports (${viewport.name})`, async () => {
      const { page, errors } = await open(viewport);
      await page.goto(`${stack.console.url}/receipts`);
      await page.getByText('12 receipts in total').waitFor();
      const blockedRow = page.getByRole('row', { name: /rcpt-e2e-10|blocked create_pull_request/ });
      await blockedRow.first().getByText('blocked create_pull_request (hidden)').waitFor();
      // The offered set is not the row's text: only what was called.
      expect(await blockedRow.first().getByText('delete_branch').count()).toBe(0);
      expect(await page.getByRole('row').nth(1).locator('time').textContent()).toMatch(
        /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/,
      );
      expect((await overflowing(page)).join(' ')).toBe('');
      await expectAccessible(page, `receipts (${viewport.name})`);
      await screenshot(page, `41-receipts-${viewport.name}`);

      // Substring search, case-insensitive, sorted oldest first: the two receipts that never
      // offered create_pull_request are left out.
      await page.getByLabel('Tool name contains').fill('PULL_REQ');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByText('10 receipts match').waitFor();
      await page.getByLabel('Sort').selectOption('oldest');
      await page.waitForURL(/order=oldest/);
      await page
        .locator('.receipt-row')
        .first()
        .locator('a[href="/receipts/rcpt-e2e-01"]')
        .waitFor();
      const listed = await page
        .locator('.receipt-row a[href^="/receipts/"]')
        .evaluateAll((links) => links.map((a) => a.getAttribute('href')));
      const matching = Array.from({ length: 12 }, (_, i) => i)
        .filter((i) => !WITHOUT_PRS.has(i))
        .map((i) => `/receipts/rcpt-e2e-${String(i).padStart(2, '0')}`);
      expect([...new Set(listed)]).toEqual(matching);

      // Export the filtered list as CSV: every matching row, the blocked tool in its column.
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'CSV' }).click(),
      ]);
      const csv = await (await download.createReadStream()).toArray();
      const lines = Buffer.concat(csv).toString('utf8').trimEnd().split('\r\n');
      expect(lines).toHaveLength(11);
      expect(lines[0]).toContain('tools_blocked');
      expect(lines.filter((line) => line.includes(',create_pull_request,'))).toHaveLength(4);

      // And as JSON Lines: one summary a line, the same rows in the list's order.
      const [jsonl] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'JSON Lines' }).click(),
      ]);
      expect(jsonl.suggestedFilename()).toMatch(/^receipts-.*\.jsonl$/);
      const text = Buffer.concat(await (await jsonl.createReadStream()).toArray()).toString('utf8');
      expect(text.endsWith('\n')).toBe(true);
      const rows = text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { id: string; gateway: string; tools: string[] });
      expect(rows.map((row) => `/receipts/${row.id}`)).toEqual(matching);
      expect(rows.every((row) => row.gateway === 'edge-r')).toBe(true);
      expect(rows.every((row) => row.tools.includes('create_pull_request'))).toBe(true);

      // A range that ends before it starts is shown as an error and not applied.
      await page.getByLabel('From').fill('2026-03-02T10:00');
      await page.getByLabel('Until').fill('2026-03-01T10:00');
      await page.getByText('“Until” must not be before “From”.').waitFor();
      expect(await page.getByRole('button', { name: 'Apply filters' }).isDisabled()).toBe(true);

      // A quick range with nothing in it: no match (there is traffic, just not lately).
      await page.getByRole('button', { name: 'Last hour' }).click();
      await page.getByText('No receipts match').waitFor();
      await screenshot(page, `42-receipts-no-match-${viewport.name}`);
      expect((await overflowing(page)).join(' ')).toBe('');

      // Suggestions for the gateway picker come from the API.
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await page.getByText('12 receipts in total').waitFor();
      await page
        .getByTestId('suggestions-gateway')
        .locator('option[value="edge-r"]')
        .waitFor({ state: 'attached' });
      expect(errors).toEqual([]);
      await page.context().close();
    });

    it(`headlines a blocked receipt as blocked, with copy and raw JSON (${viewport.name})`, async () => {
      const { page, errors } = await open(viewport);
      // The receipt held back until the skeleton has been seen: the page keeps its shape.
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      await page.route('**/apis/toolgate.dev/v1/receipts/rcpt-e2e-10', async (route) => {
        await held;
        await route.continue();
      });
      await page.goto(`${stack.console.url}/receipts/rcpt-e2e-10`);
      const skeleton = page.locator('.skeleton[aria-busy="true"]', { hasText: 'Loading receipt…' });
      await skeleton.waitFor();
      expect(await skeleton.getAttribute('role')).toBe('status');
      expect(await skeleton.locator('.skeleton-bar').count()).toBeGreaterThan(1);
      expect(await page.getByTestId('outcome-headline').count()).toBe(0);
      release();
      const headline = page.getByTestId('outcome-headline');
      await headline.getByText('blocked: create_pull_request (hidden)').waitFor();
      await skeleton.waitFor({ state: 'detached' });
      await page.unroute('**/apis/toolgate.dev/v1/receipts/rcpt-e2e-10');
      expect(await headline.locator('.pill-good').count()).toBe(0);

      // Hashes are identifiers: neutral badges, never styled like the status pills beside them.
      const badges = page.locator('.hash-badge');
      expect(await badges.count()).toBeGreaterThan(3);
      // Strings, run in the page: the tests have no DOM types (as elsewhere in e2e/browser).
      const looks = (await page.evaluate(`Array.from(document.querySelectorAll('.hash-badge'))
        .map((el) => {
          const style = getComputedStyle(el);
          return {
            pill: el.classList.contains('pill') || el.closest('.pill') !== null,
            background: style.backgroundColor,
            radius: style.borderTopLeftRadius,
            color: style.color,
          };
        })`)) as Array<{ pill: boolean; background: string; radius: string; color: string }>;
      expect(looks).toHaveLength(await badges.count());
      const pillColors = (await page.evaluate(
        `Array.from(document.querySelectorAll('.pill-good, .pill-bad, .pill-warn, .pill-info'))
          .map((el) => getComputedStyle(el).color)`,
      )) as string[];
      expect(pillColors.length).toBeGreaterThan(0);
      for (const look of looks) {
        expect(look.pill).toBe(false);
        expect(look.background).toBe('rgba(0, 0, 0, 0)');
        expect(look.radius).toBe('2px');
        expect(pillColors).not.toContain(look.color);
      }

      // Copy id: the clipboard holds the id, and the button says so.
      const copy = page.getByRole('button', { name: /^Copy id/ });
      await copy.click();
      await copy.getByText('Copied').waitFor();
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe('rcpt-e2e-10');
      await page.getByRole('button', { name: 'Show JSON' }).click();
      const json = await page.getByLabel('Receipt rcpt-e2e-10 as JSON').inputValue();
      expect(JSON.parse(json)).toMatchObject({ id: 'rcpt-e2e-10', gateway: 'edge-r' });
      expect((await overflowing(page)).join(' ')).toBe('');
      await expectAccessible(page, `receipt detail (${viewport.name})`);
      await screenshot(page, `43-receipt-blocked-${viewport.name}`);

      await page.goto(`${stack.console.url}/receipts/rcpt-e2e-11`);
      await page.getByTestId('outcome-headline').getByText('error 502').waitFor();
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }
});
