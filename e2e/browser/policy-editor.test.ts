import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './support/axe.ts';
import {
  collectPageErrors,
  launchBrowser,
  screenshot,
  signedInContext,
} from './support/browser.ts';
import { type ConsoleStack, startConsoleStack } from './support/stack.ts';

/**
 * The policy editor's promises in a real browser against a real API, on a desktop and on a
 * phone: Tab does not trap a keyboard user (Esc then Tab leaves), a draft survives switching
 * tabs and pages and leaving asks first, errors read as sentences, and Apply goes through a
 * review with a change note that history shows.
 */

let stack: ConsoleStack;
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startConsoleStack(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const VIEWPORTS = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

const policyYaml = (name: string, action: string) => `apiVersion: toolgate.dev/v1
kind: MediationPolicy
metadata:
  name: ${name}
spec:
  rules:
    - id: hide-destructive
      action: ${action}
      match:
        name: delete_branch
`;

async function horizontalOverflow(page: Page): Promise<number> {
  return (await page.evaluate(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  )) as number;
}

async function editorText(page: Page): Promise<string> {
  return (await page.locator('.cm-content').textContent()) ?? '';
}

/**
 * The editor shows the spec in the order `policyYaml` wrote it: `rules` first under `spec`, and
 * a rule's `id`, `action`, `match` (its schema would say id, match, action; jsonb mode before
 * rules). The editor's lines run together in its text, indentation kept.
 */
async function expectWrittenKeyOrder(page: Page, action: string): Promise<void> {
  const text = await editorText(page);
  expect(text).toMatch(/spec:\s*rules:\s*- id: hide-destructive/);
  expect(text).toMatch(
    new RegExp(`id: hide-destructive\\s*action: ${action}\\s*match:\\s*name: delete_branch`),
  );
}

describe.each(VIEWPORTS)('the policy editor ($name, $width×$height)', (viewport) => {
  it('keyboard, drafts, human errors, review with a note, history', async () => {
    const name = `editor-${viewport.name}`;
    await stack.api.operator.call('mediationPolicies.create', {
      body: {
        apiVersion: 'toolgate.dev/v1',
        kind: 'MediationPolicy',
        metadata: { name },
        spec: {
          rules: [{ id: 'hide-destructive', action: 'hide', match: { name: 'delete_branch' } }],
        } as never,
      },
    });
    const context = await signedInContext(browser, stack.api.operatorToken, { viewport });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(`${stack.console.url}/policies/${name}`);
    const content = page.locator('.cm-content');
    await content.waitFor();
    await page.getByText('Esc then Tab to leave the editor').waitFor();

    // Keyboard: Tab indents inside; Escape then Tab moves focus out of the editor.
    await content.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.classList.contains("cm-content")')).toBe(
      true,
    );
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.classList.contains("cm-content")')).toBe(
      false,
    );
    expect(await page.evaluate('!!document.activeElement.closest(".cm-editor")')).toBe(false);

    // A mistake reads as a sentence, and Apply is off while it stands.
    await content.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(
      policyYaml(name, 'deny').replace('      match:\n        name: delete_branch\n', ''),
    );
    const errorList = page.getByRole('alert', { name: 'Validation errors' });
    await errorList.locator('li', { hasText: 'rule 1: match is required' }).waitFor();
    expect(await page.getByRole('button', { name: 'Review and apply…' }).isDisabled()).toBe(true);
    await expectAccessible(page, `policy editor error (${viewport.name})`);
    await screenshot(page, `policy-editor-human-error-${viewport.name}`);

    // Fixed; the draft survives the History tab and another page.
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(policyYaml(name, 'deny'));
    await page.getByText('valid (dry run)').waitFor();
    await page.getByRole('tab', { name: 'History' }).click();
    await page.getByRole('table').waitFor();
    await page.getByRole('tab', { name: 'Editor' }).click();
    await page.getByText('Unsaved draft restored.').waitFor();
    expect(await editorText(page)).toContain('action: deny');

    // Reloading asks first (beforeunload), and the reloaded page restores the draft.
    const unload = new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.type());
        void dialog.accept();
      }),
    );
    await page.reload();
    expect(await unload).toBe('beforeunload');
    await page.getByText('Unsaved draft restored.').waitFor();
    expect(await editorText(page)).toContain('action: deny');
    // Leaving in the app asks first.
    await page.getByRole('link', { name: '← All policies' }).click();
    const prompt = page.getByRole('alertdialog', { name: 'Unsaved changes' });
    await prompt.waitFor();
    await expectAccessible(page, `unsaved changes prompt (${viewport.name})`);
    await screenshot(page, `policy-editor-unsaved-prompt-${viewport.name}`);
    await page.getByRole('button', { name: 'Stay on this page' }).click();
    await prompt.waitFor({ state: 'detached' });

    // Review: the change in words, a note, the confirmation, and the note in history.
    await page.getByRole('button', { name: 'Review and apply…' }).click();
    const review = page.getByRole('dialog', { name: `Review: generation 2 of ${name}` });
    await review.getByText('rule hide-destructive: action changed from hide to deny').waitFor();
    // Defaults the draft leaves out (mode, priority…) are no change.
    expect(await review.getByRole('listitem').count()).toBe(1);
    await page.getByLabel('Change note (optional)').fill('INC-42: no deletes at all');
    await expectAccessible(page, `apply review (${viewport.name})`);
    await screenshot(page, `policy-editor-review-${viewport.name}`);
    await page.getByRole('button', { name: 'Apply generation 2' }).click();
    await page.getByText(`Applied: generation 2 of ${name}`).waitFor();
    const revisions = await stack.api.operator.call('policies.revisions', { params: { name } });
    expect(revisions.items[0]?.changeNote).toBe('INC-42: no deletes at all');
    // The applied policy reads back in the order it was written, before and after a reload.
    await expectWrittenKeyOrder(page, 'deny');

    // Preview on a gateway: the draft runs with every policy that gateway runs.
    const gatewayName = `edge-${viewport.name}`;
    await stack.api.identity(`gw-${viewport.name}`, ['gateway']);
    await stack.api.operator.call('gateways.create', {
      body: {
        apiVersion: 'toolgate.dev/v1',
        kind: 'Gateway',
        metadata: { name: gatewayName, labels: { env: 'prod' } },
        spec: { identity: `gw-${viewport.name}` },
      },
    });
    // Another policy that gateway runs (it selects env=prod): it hides create_pull_request.
    const other = `prod-only-${viewport.name}`;
    await stack.api.operator.call('mediationPolicies.create', {
      body: {
        apiVersion: 'toolgate.dev/v1',
        kind: 'MediationPolicy',
        metadata: { name: other },
        spec: {
          selector: { matchLabels: { env: 'prod' } },
          priority: 50,
          rules: [{ id: 'hide-prs', action: 'hide', match: { name: 'create_pull_request' } }],
        } as never,
      },
    });
    await page.reload();
    await page.locator('.cm-content').waitFor();
    await expectWrittenKeyOrder(page, 'deny');
    const result = page.getByRole('region', { name: 'Preview result' });
    const after = page.getByRole('list', { name: 'Tools after' });
    // Alone, the draft leaves create_pull_request be…
    await page.getByRole('button', { name: 'Run preview' }).click();
    await after.getByText('delete_branch', { exact: true }).waitFor();
    expect(await after.getByText('create_pull_request', { exact: true }).count()).toBe(1);
    // …on the gateway, the other policy runs too (first: higher priority) and hides it.
    await page.getByLabel('Run on').selectOption(gatewayName);
    await page.getByRole('button', { name: 'Run preview' }).click();
    await result.getByText(`On ${gatewayName}, in order:`).waitFor();
    const ran = result.locator('p', { hasText: `On ${gatewayName}, in order:` });
    await ran.getByText('(this draft)').waitFor();
    expect(await ran.textContent()).toMatch(
      new RegExp(`${other} \\(generation 1\\),.*${name} \\(this draft\\)`),
    );
    await after.getByText('delete_branch', { exact: true }).waitFor();
    await after.getByText('create_pull_request', { exact: true }).waitFor({ state: 'detached' });
    expect(await after.getByText('search_code', { exact: true }).count()).toBe(1);
    await expectAccessible(page, `preview on a gateway (${viewport.name})`);
    await screenshot(page, `policy-editor-preview-gateway-${viewport.name}`);

    await page.getByRole('tab', { name: 'History' }).click();
    await page.getByText('“INC-42: no deletes at all”').waitFor();
    await page.getByText('rule hide-destructive: action changed from hide to deny').waitFor();
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await expectAccessible(page, `policy history (${viewport.name})`);
    await screenshot(page, `policy-editor-history-${viewport.name}`);
    expect(errors).toEqual([]);
    await context.close();
  });
});
