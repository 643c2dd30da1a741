import { createClient } from '@toolgate/contract';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hideRule,
  policyObject,
  registerGateway,
} from '../../apps/gateway/src/faults/control-plane.ts';
import { expectAccessible } from './support/axe.ts';
import {
  collectPageErrors,
  launchBrowser,
  screenshot,
  signedInContext,
} from './support/browser.ts';
import { type ConsoleStack, startConsoleStack } from './support/stack.ts';

/**
 * Identities, gateways (fleet and a gateway's page), the audit log and fidelity in Chromium on a
 * real API: an agent's token is used before the page loads (its last use must show), gateways
 * report status through their own identities as gateways do (one in sync, one behind, one that
 * refused a bundle, reporting three times), a policy is changed once (its audit row links to
 * the diff). Each page at 1440×900 and 390×844, with axe and a screenshot.
 */

let stack: ConsoleStack;
let browser: Browser;
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const NACK_MESSAGE = 'policies[0].spec.rules[0].match.name: must not be empty';

function synced(ok: boolean) {
  return {
    type: 'Synced',
    status: ok ? ('True' as const) : ('False' as const),
    reason: ok ? 'BundleApplied' : 'BundleRejected',
    message: ok ? '' : NACK_MESSAGE,
    lastTransitionTime: new Date().toISOString(),
  };
}

async function report(token: string, name: string, etag: string, ok: boolean): Promise<void> {
  await createClient({ baseUrl: stack.api.url, token }).call('gateways.replaceStatus', {
    params: { name },
    body: {
      status: {
        appliedBundleETag: etag,
        lastSyncTime: new Date().toISOString(),
        spoolDepth: 0,
        version: '0.1.0',
        conditions: [synced(ok)],
      },
    },
  });
}

beforeAll(async () => {
  [stack, browser] = await Promise.all([startConsoleStack(), launchBrowser()]);
  const api = stack.api;
  const labels = { env: 'fleet' };
  await api.operator.call('mediationPolicies.create', {
    body: policyObject('fleet-rules', labels, [hideRule('hide-deletes', 'delete_branch')]),
  });
  const current = await api.operator.call('mediationPolicies.get', {
    params: { name: 'fleet-rules' },
  });
  const changed = policyObject('fleet-rules', labels, [hideRule('hide-deletes', 'delete_repo')]);
  await api.operator.call('mediationPolicies.replace', {
    params: { name: 'fleet-rules' },
    body: {
      ...changed,
      metadata: { name: 'fleet-rules', resourceVersion: current.metadata.resourceVersion },
    },
  });
  // Identities first: agents' tokens are part of every bundle, so they change its ETag.
  // An agent whose token is used once before anyone looks.
  const { token } = await api.identity('agent-used', ['agent'], 'service');
  await createClient({ baseUrl: api.url, token }).call('tokens.whoami');
  await api.identity('role-target', ['auditor']);
  await api.identity('to-remove', ['auditor']);
  const tokens = {
    ok: await registerGateway(api, 'edge-ok', labels),
    old: await registerGateway(api, 'edge-old', labels),
    nack: await registerGateway(api, 'edge-nack', labels),
  };
  const desired = (await api.operator.call('gatewaySync.list')).items.find(
    (g) => g.name === 'edge-ok',
  )?.desiredBundleETag as string;
  await report(tokens.ok, 'edge-ok', desired, true);
  await report(tokens.old, 'edge-old', `sha256:${'0'.repeat(64)}`, true);
  await report(tokens.nack, 'edge-nack', desired, true);
  for (let i = 0; i < 3; i++) await report(tokens.nack, 'edge-nack', desired, false);
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function open(viewport: { width: number; height: number }, path: string) {
  const context = await signedInContext(browser, stack.api.operatorToken, { viewport });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
    origin: stack.console.url,
  });
  const page = await context.newPage();
  const errors = collectPageErrors(page);
  await page.goto(`${stack.console.url}${path}`);
  return { page, errors };
}

async function horizontalOverflow(page: Page): Promise<number> {
  return (await page.evaluate(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  )) as number;
}

describe('identities', () => {
  it('shows the live token count and last use, edits roles, copies a token, deletes', async () => {
    const { page, errors } = await open(DESKTOP, '/identities');
    const used = page.getByRole('row', { name: /agent-used/ });
    await used.getByText('just now').waitFor();
    expect(await used.getByRole('cell').nth(2).textContent()).toBe('1');

    const target = page.getByRole('row', { name: /role-target/ });
    await target.getByRole('button', { name: 'Edit roles of role-target' }).click();
    const roles = page.getByRole('form', { name: 'Roles of role-target' });
    await roles.getByLabel('operator').check();
    await roles.getByRole('button', { name: 'Save roles' }).click();
    await roles.waitFor({ state: 'detached' });
    await target.getByText('operator', { exact: true }).waitFor();
    const after = await stack.api.operator.call('identities.get', {
      params: { name: 'role-target' },
    });
    expect(after.spec.roles).toEqual(['auditor', 'operator']);

    await page.getByRole('button', { name: 'Tokens of role-target' }).click();
    await page.getByRole('button', { name: 'Issue token' }).click();
    const secret = page.locator('.secret-value');
    await secret.waitFor();
    await page.getByRole('button', { name: /^Copy/ }).click();
    await page.getByText('✓ Copied').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(await secret.textContent());
    await expectAccessible(page, 'identities');
    await screenshot(page, '40-identities');

    page.once('dialog', (dialog) => {
      expect(dialog.message()).toBe(
        'Delete identity to-remove? Its 1 active token stops working at once.',
      );
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Delete identity to-remove' }).click();
    await page.getByRole('row', { name: /to-remove/ }).waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
  });
});

describe('gateways', () => {
  it('sums up the fleet, highlights the NACK, shows desired vs applied; a gateway page', async () => {
    const { page, errors } = await open(DESKTOP, '/gateways');
    const summary = page.getByRole('list', { name: 'Fleet summary' });
    await summary.getByText('in sync').waitFor();
    const tiles = await summary.getByRole('listitem').allTextContents();
    expect(tiles.map((t) => t.match(/^\D+?(\d+)/)?.[1])).toEqual(['1', '1', '1', '0']);
    const nack = page.getByRole('row', { name: /edge-nack/ });
    expect(await nack.getAttribute('class')).toBe('row-nack');
    await nack.getByText(NACK_MESSAGE).waitFor();
    const behind = page.getByRole('row', { name: /edge-old/ });
    await behind.getByText('behind').waitFor();
    await behind.getByText('latest', { exact: true }).waitFor();
    await expectAccessible(page, 'gateways');
    await screenshot(page, '41-gateways');

    await nack.getByRole('link', { name: 'edge-nack' }).click();
    await page.getByRole('heading', { name: 'Gateway: edge-nack' }).waitFor();
    const history = page.getByRole('region', { name: 'Status history' });
    const rows = history.getByRole('row');
    await rows.nth(1).getByText('×3').waitFor();
    await rows.nth(2).getByText('×1').waitFor();
    await page.getByRole('region', { name: 'Last errors' }).getByText(NACK_MESSAGE).waitFor();
    await expectAccessible(page, 'gateway page');
    await screenshot(page, '42-gateway-page');
    await page.getByRole('link', { name: 'Receipts of edge-nack' }).click();
    await page.waitForURL(/\/receipts\?gateway=edge-nack$/);
    expect(errors).toEqual([]);
  });
});

describe('audit log', () => {
  it('folds repeated status reports, links a policy change to its diff, filters by time', async () => {
    const { page, errors } = await open(DESKTOP, '/audit');
    const reports = page.getByRole('row', { name: /Gateway\/edge-nack/ }).first();
    await reports.getByText('×4').waitFor();
    const change = page.getByRole('row', { name: /MediationPolicy\/fleet-rules/ }).first();
    await expectAccessible(page, 'audit log');
    await screenshot(page, '43-audit-log');
    await change.getByRole('link', { name: 'MediationPolicy/fleet-rules' }).click();
    await page.waitForURL(/\/policies\/fleet-rules\?tab=diff&from=1&to=2$/);

    await page.goto(`${stack.console.url}/audit`);
    await page.getByRole('button', { name: 'Last hour' }).click();
    await page.waitForURL(/range=hour/);
    await page
      .getByRole('row', { name: /Gateway\/edge-nack/ })
      .first()
      .waitFor();
    const range = page.getByRole('form', { name: 'Audit time range' });
    await range.getByLabel('From').fill('2026-03-02T10:00');
    await range.getByLabel(/Until/).fill('2026-03-01T10:00');
    await range.getByText('“Until” must be after “From”.').waitFor();
    expect(await range.getByRole('button', { name: 'Apply range' }).isDisabled()).toBe(true);
    await range.getByLabel(/Until/).fill('2026-03-03T10:00');
    await range.getByRole('button', { name: 'Apply range' }).click();
    await page.waitForURL(/range=custom/);
    await page.getByText('No audit entries match').waitFor();
    expect(errors).toEqual([]);
  });
});

describe('fidelity', () => {
  it('labels every level by name and mark, and keeps the wire ids visible', async () => {
    const { page, errors } = await open(DESKTOP, '/fidelity');
    const legend = page.getByRole('list', { name: 'Fidelity levels, strongest first' });
    await legend.getByText('Provider-attested').waitFor();
    await page
      .getByRole('rowheader', { name: /Web search/ })
      .getByText('wardwright.web_search.v1')
      .waitFor();
    await expectAccessible(page, 'fidelity');
    await screenshot(page, '44-fidelity');
    expect(errors).toEqual([]);
  });
});

describe('on a phone (390×844)', () => {
  const pages: Array<[string, string, string]> = [
    ['/identities', 'Identities', '45-identities-phone'],
    ['/gateways', 'Gateways', '46-gateways-phone'],
    ['/gateways/edge-nack', 'Gateway: edge-nack', '47-gateway-page-phone'],
    ['/audit', 'Audit log', '48-audit-log-phone'],
    ['/fidelity', 'Fidelity', '49-fidelity-phone'],
  ];
  for (const [path, heading, shot] of pages) {
    it(`${path} fits without horizontal scrolling and passes axe`, async () => {
      const { page, errors } = await open(PHONE, path);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await page
        .locator('.state-loading')
        .first()
        .waitFor({ state: 'detached' })
        .catch(() => {});
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await expectAccessible(page, `${path} (phone)`);
      await screenshot(page, shot);
      expect(errors).toEqual([]);
    });
  }
});
