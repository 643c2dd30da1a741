import { createClient } from '@toolgate/contract';
import { ingestBatchOf } from '@toolgate/core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainOf, fixtureReceiptBody } from '../../apps/api/src/receipts/receipt-fixtures.ts';
import { approvalRequest } from '../../apps/api/src/tool-call-approvals/approvals-testing.ts';
import {
  hideRule,
  policyObject,
  registerGateway,
} from '../../apps/gateway/src/faults/control-plane.ts';
import { seriousA11yViolations } from './support/axe.ts';
import {
  collectPageErrors,
  inEachColorScheme,
  launchBrowser,
  screenshot,
  signedInContext,
} from './support/browser.ts';
import { type ConsoleStack, startConsoleStack } from './support/stack.ts';

/**
 * The console's global behaviour in Chromium on a real API with real data: every route at a
 * desktop and a phone size, in the light and the dark scheme, fits the width and passes axe;
 * a 401 returns to the page after sign-in; 404 pages; arrow keys on tab bars; the phone menu;
 * the theme toggle.
 */

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const VIEWPORTS = [
  { name: 'desktop', size: DESKTOP },
  { name: 'phone', size: PHONE },
] as const;

let stack: ConsoleStack;
let browser: Browser;
const contexts = new Map<string, BrowserContext>();
let receiptId: string;
let approvalName: string;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startConsoleStack(), launchBrowser()]);
  const api = stack.api;
  const gatewayToken = await registerGateway(api, 'edge-global', { env: 'e2e' });
  await api.operator.call('mediationPolicies.create', {
    body: policyObject('guardrails', { env: 'e2e' }, [hideRule('hide-deletes', 'delete_branch')]),
  });
  const now = Date.now();
  const bodies = Array.from({ length: 6 }, (_, i) =>
    fixtureReceiptBody({
      id: `global-${i}`,
      gateway: 'edge-global',
      receivedAt: new Date(now - (30 - i * 5) * 60_000).toISOString(),
      tools: ['read_file', 'search_code', 'create_pull_request'],
      calls: i % 2 === 0 ? ['read_file'] : ['create_pull_request'],
      status: i === 5 ? 502 : 200,
    }),
  );
  const gateway = createClient({ baseUrl: api.url, token: gatewayToken });
  await gateway.call('receipts.ingest', {
    params: { name: 'edge-global' },
    body: ingestBatchOf(chainOf(bodies)),
  });
  receiptId = (await api.operator.call('receipts.list', { query: { limit: 1 } })).items[0]
    ?.id as string;
  const approval = approvalRequest('edge-global', { tool: 'send_email' });
  const asked = await api.fetch(
    `/apis/toolgate.dev/v1/toolcallapprovals/${approval.spec.actionId}/request`,
    { method: 'POST', token: gatewayToken, body: JSON.stringify(approval) },
  );
  expect(asked.status).toBe(201);
  approvalName = (await api.operator.call('toolCallApprovals.list', {})).items[0]?.metadata
    .name as string;
  await api.operator.call('mcpServers.create', {
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'McpServer',
      metadata: { name: 'github' },
      spec: { url: 'https://mcp.example.com/mcp', drift: 'block' },
    },
  });
  await api.operator.call('hostedTools.create', {
    body: {
      apiVersion: 'toolgate.dev/v1',
      kind: 'HostedTool',
      metadata: { name: 'approved-web-search' },
      spec: {
        tool: { name: 'approved_web_search', description: 'Search the web.' },
        endpoint: {
          url: 'https://search.internal.example/v1/search/with/a/rather/long/path?team=platform',
          headers: [{ name: 'Authorization', secretRef: { env: 'SEARCH_API_TOKEN' } }],
        },
        redact: ['debug.token', 'results[*].tracking'],
      },
    } as never,
  });
  for (const viewport of VIEWPORTS) {
    contexts.set(
      viewport.name,
      await signedInContext(browser, api.operatorToken, { viewport: viewport.size }),
    );
  }
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** Waits until the page has its content: a heading, and no skeleton left. */
async function settled(page: Page): Promise<void> {
  await page.locator('h1').first().waitFor();
  await expect.poll(() => page.locator('[aria-busy="true"]').count(), { timeout: 15_000 }).toBe(0);
}

/**
 * How far the page is wider than the screen (0 when it fits) and, when it is not, the outermost
 * elements that stick out on the right, to say what to fix.
 */
async function horizontalOverflow(page: Page): Promise<{ px: number; culprits: string[] }> {
  return (await page.evaluate(`(() => {
    const root = document.documentElement;
    const px = root.scrollWidth - root.clientWidth;
    const culprits = [];
    if (px > 0) {
      for (const el of document.querySelectorAll('body *')) {
        const right = el.getBoundingClientRect().right;
        const parent = el.parentElement;
        if (right > root.clientWidth + 1 && parent && parent.getBoundingClientRect().right <= root.clientWidth + 1) {
          culprits.push(el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + ' (' + Math.round(right) + 'px)');
          if (culprits.length >= 5) break;
        }
      }
      // Content (text) can spill out of a box that itself fits: name the innermost such boxes.
      if (culprits.length === 0) {
        for (const el of document.querySelectorAll('body *')) {
          if (el.children.length === 0 && el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === 'visible') {
            culprits.push(el.tagName.toLowerCase() + '.' + String(el.className) + ' "' + (el.textContent || '').slice(0, 40) + '"');
            if (culprits.length >= 5) break;
          }
        }
      }
    }
    return { px, culprits };
  })()`)) as { px: number; culprits: string[] };
}

const ROUTES: Array<{ slug: string; path: () => string; heading?: RegExp }> = [
  { slug: 'overview', path: () => '/' },
  { slug: 'policies', path: () => '/policies' },
  { slug: 'policy-new', path: () => '/policies/new' },
  { slug: 'policy-editor', path: () => '/policies/guardrails' },
  { slug: 'policy-history', path: () => '/policies/guardrails?tab=history' },
  { slug: 'policy-diff', path: () => '/policies/guardrails?tab=diff' },
  { slug: 'receipts', path: () => '/receipts' },
  { slug: 'receipt', path: () => `/receipts/${receiptId}` },
  { slug: 'approvals', path: () => '/approvals' },
  { slug: 'approval', path: () => `/approvals/${approvalName}` },
  { slug: 'fidelity', path: () => '/fidelity' },
  { slug: 'gateways', path: () => '/gateways' },
  { slug: 'gateway', path: () => '/gateways/edge-global', heading: /^Gateway: edge-global$/ },
  { slug: 'mcp-servers', path: () => '/mcp-servers' },
  { slug: 'mcp-server', path: () => '/mcp-servers/github' },
  { slug: 'hosted-tools', path: () => '/hosted-tools' },
  { slug: 'hosted-tool', path: () => '/hosted-tools/approved-web-search' },
  { slug: 'identities', path: () => '/identities' },
  { slug: 'audit', path: () => '/audit' },
  { slug: 'not-found', path: () => '/nowhere/at/all', heading: /^Not found$/ },
  { slug: 'policy-not-found', path: () => '/policies/does-not-exist', heading: /^Not found$/ },
];

describe('every console route, desktop and phone, light and dark', () => {
  it.each(ROUTES)('$slug fits the width and passes axe', async (route) => {
    for (const viewport of VIEWPORTS) {
      const page = await (contexts.get(viewport.name) as BrowserContext).newPage();
      const errors = collectPageErrors(page);
      await page.goto(`${stack.console.url}${route.path()}`);
      await settled(page);
      if (route.heading) await page.getByRole('heading', { name: route.heading }).waitFor();
      const problems: string[] = [];
      await inEachColorScheme(page, async (scheme) => {
        const overflow = await horizontalOverflow(page);
        if (overflow.px > 0) {
          problems.push(
            `${viewport.name}/${scheme}: ${overflow.px}px too wide: ${overflow.culprits.join(', ')}`,
          );
        }
        for (const v of await seriousA11yViolations(page)) {
          problems.push(`${viewport.name}/${scheme}: [${v.impact}] ${v.id} ${v.targets.join(' ')}`);
        }
      });
      await screenshot(page, `60-${route.slug}-${viewport.name}`);
      await page.close();
      expect(problems).toEqual([]);
      // A 404 page is an answer the console shows, not a page error.
      expect(errors).toEqual([]);
    }
  });

  it('the sign-in page fits and passes axe too', async () => {
    for (const viewport of VIEWPORTS) {
      const context = await browser.newContext({ viewport: viewport.size });
      const page = await context.newPage();
      await page.goto(`${stack.console.url}/sign-in`);
      await page.getByRole('heading', { name: 'Toolgate console' }).waitFor();
      const problems: string[] = [];
      await inEachColorScheme(page, async (scheme) => {
        if ((await horizontalOverflow(page)).px > 0) problems.push(`${viewport.name}/${scheme}`);
        for (const v of await seriousA11yViolations(page)) {
          problems.push(`${viewport.name}/${scheme}: [${v.impact}] ${v.id}`);
        }
      });
      await screenshot(page, `60-sign-in-${viewport.name}`);
      await context.close();
      expect(problems).toEqual([]);
    }
  });
});

describe('global behaviour', () => {
  it('a 401 from any call signs out; sign-in returns to the page with its query string', async () => {
    const { token } = await stack.api.identity('global-auditor', ['auditor']);
    const context = await signedInContext(browser, token, { viewport: DESKTOP });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(`${stack.console.url}/receipts`);
    await page.getByText(/receipts in total/).waitFor();

    // The token is revoked while the page is open; whoami is cached, the next call is a 401.
    const [issued] = (
      await stack.api.operator.call('tokens.listTokens', { params: { name: 'global-auditor' } })
    ).items;
    await stack.api.operator.call('tokens.revokeToken', {
      params: { name: 'global-auditor', tokenId: issued?.id as string },
    });
    await page.getByLabel('Tool (exact)').fill('create_pull_request');
    await page.getByRole('button', { name: 'Apply filters' }).click();

    await page.waitForURL(/\/sign-in\?/);
    await page.getByText(/Your session has ended/).waitFor();
    const next = new URL(page.url()).searchParams.get('next');
    expect(next).toMatch(/^\/receipts\?.*tool=create_pull_request/);
    expect(await page.evaluate("sessionStorage.getItem('toolgate.token')")).toBeNull();
    await screenshot(page, '61-session-ended');

    await page.getByLabel('API token').fill(stack.api.operatorToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => `${url.pathname}${url.search}` === next);
    expect(await page.getByLabel('Tool (exact)').inputValue()).toBe('create_pull_request');
    await page.getByText(/receipts? match/).waitFor();
    await context.close();
    expect(errors).toEqual([]);
  });

  it("the Overview's pending approvals tile opens the approvals waiting on a person", async () => {
    const page = await (contexts.get('desktop') as BrowserContext).newPage();
    const errors = collectPageErrors(page);
    await page.goto(`${stack.console.url}/`);
    const tile = page.getByRole('list', { name: 'Totals' }).locator('.tile', {
      hasText: 'Pending approvals',
    });
    const link = tile.getByRole('link', { name: '1', exact: true });
    await link.waitFor();
    await link.click();
    await page.waitForURL(/\/approvals\?state=pending$/);
    expect(
      await page.getByRole('button', { name: 'pending (1)' }).getAttribute('aria-pressed'),
    ).toBe('true');
    await page.getByRole('row', { name: /send_email/ }).waitFor();
    await page.close();
    expect(errors).toEqual([]);
  });

  it('404 pages offer the way back', async () => {
    const page = await (contexts.get('desktop') as BrowserContext).newPage();
    await page.goto(`${stack.console.url}/policies/does-not-exist`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await page.getByRole('link', { name: '← Back to policies' }).click();
    await page.waitForURL(/\/policies$/);
    await page.getByRole('link', { name: 'guardrails' }).waitFor();

    await page.goto(`${stack.console.url}/no-such-page?x=1`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await page.getByRole('link', { name: 'Go to the Overview' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.close();
  });

  it('tab bars move with the arrow keys, Home and End (one tab stop)', async () => {
    const page = await (contexts.get('desktop') as BrowserContext).newPage();
    await page.goto(`${stack.console.url}/policies/guardrails`);
    const views = page.getByRole('tablist', { name: 'Policy views' });
    const selected = views.getByRole('tab', { selected: true });
    await selected.waitFor();
    expect(await views.locator('[tabindex="0"]').count()).toBe(1);
    await selected.focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForURL(/tab=history/);
    await expect.poll(() => selected.textContent()).toBe('History');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('History');
    // Each key acts on the focused tab: wait for focus to settle on it (the panel a tab opens
    // loads lazily, and a slow machine must not send the next key before it lands).
    const focusedTab = () => page.evaluate('document.activeElement.textContent');
    await page.keyboard.press('End');
    await page.waitForURL(/tab=diff/);
    await expect.poll(focusedTab).toBe('Diff');
    await page.keyboard.press('ArrowRight');
    await page.waitForURL((url) => !url.search.includes('tab='));
    await expect.poll(() => selected.textContent()).toBe('Editor');
    await expect.poll(focusedTab).toBe('Editor');
    await page.keyboard.press('ArrowLeft');
    await page.waitForURL(/tab=diff/);
    await expect.poll(focusedTab).toBe('Diff');
    await page.keyboard.press('Home');
    await page.waitForURL((url) => !url.search.includes('tab='));

    const editorView = page.getByRole('tablist', { name: 'Editor view' });
    await editorView.getByRole('tab', { name: 'YAML' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect
      .poll(() => editorView.getByRole('tab', { selected: true }).textContent())
      .toBe('Form');
    await page.getByRole('tabpanel').getByLabel('Name').first().waitFor();
    await page.close();
  });

  it('on a phone the navigation folds behind a Menu button', async () => {
    const page = await (contexts.get('phone') as BrowserContext).newPage();
    await page.goto(`${stack.console.url}/receipts`);
    const menu = page.getByRole('button', { name: 'Menu' });
    const policies = page.getByRole('navigation', { name: 'Main' }).getByRole('link', {
      name: 'Policies',
    });
    await menu.waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await policies.isVisible()).toBe(false);

    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await policies.waitFor({ state: 'visible' });
    expect((await horizontalOverflow(page)).px).toBe(0);
    await screenshot(page, '62-phone-menu-open');
    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Menu');

    await menu.click();
    await policies.click();
    await page.waitForURL(/\/policies$/);
    await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('false');
    expect(await policies.isVisible()).toBe(false);
    await page.close();

    const desktop = await (contexts.get('desktop') as BrowserContext).newPage();
    await desktop.goto(`${stack.console.url}/receipts`);
    await desktop
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Policies' })
      .waitFor();
    expect(await desktop.getByRole('button', { name: 'Menu' }).isVisible()).toBe(false);
    await desktop.close();
  });

  it('the theme follows the system, and a chosen theme is remembered', async () => {
    const context = await signedInContext(browser, stack.api.operatorToken, { viewport: DESKTOP });
    const page = await context.newPage();
    const background = () =>
      page.evaluate('getComputedStyle(document.documentElement).backgroundColor');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${stack.console.url}/policies`);
    await page.getByRole('link', { name: 'guardrails' }).waitFor();
    // The document says it supports both schemes, so the browser's own parts (scrollbars,
    // form controls, the page before the CSS loads) follow the system too.
    expect(await page.locator('meta[name="color-scheme"]').getAttribute('content')).toBe(
      'light dark',
    );
    const light = await background();
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await background();
    expect(dark).not.toBe(light);

    // Pinned to light while the system is dark; kept across a reload.
    const theme = page.getByLabel('Theme');
    expect(await theme.inputValue()).toBe('system');
    await theme.selectOption('light');
    expect(await background()).toBe(light);
    expect(await page.evaluate("localStorage.getItem('toolgate.theme')")).toBe('light');
    await page.reload();
    await page.getByRole('link', { name: 'guardrails' }).waitFor();
    expect(await background()).toBe(light);
    expect(await page.getByLabel('Theme').inputValue()).toBe('light');

    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByLabel('Theme').selectOption('dark');
    expect(await background()).toBe(dark);
    await page.getByLabel('Theme').selectOption('system');
    expect(await background()).toBe(light);
    expect(await page.evaluate("localStorage.getItem('toolgate.theme')")).toBeNull();
    await context.close();
  });
});
