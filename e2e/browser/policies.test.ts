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
 * The operator's policy workflow in a real browser against a real API: sign in, write a policy
 * with a mistake, see the error at its field, fix it, create it, preview it, change it to a
 * second generation, diff the two, roll back. And an auditor sees no write control anywhere.
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

const DRAFT_WITH_ERROR = `apiVersion: toolgate.dev/v1
kind: MediationPolicy
metadata:
  name: github-guardrails
  labels:
    team: platform
spec:
  mode: patch
  rules:
    - id: hide-deletes
      action: hide
      match:
        name: delete_branch
    - id: alias-pr
      action: rename
      match:
        name: create_pull_request
      alias: "open pull request!"
`;

/** Replaces the whole YAML editor content with `text`. */
async function setEditorText(page: Page, text: string): Promise<void> {
  const editor = page.locator('.cm-content');
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

describe('policies in the browser', () => {
  it('signs in, creates a policy through a field error, previews, edits, diffs and rolls back', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 960 } });
    const page = await context.newPage();
    const errors = collectPageErrors(page);

    // Sign in: a bad token is refused, the operator token gets in.
    await page.goto(`${stack.console.url}/policies`);
    await page.getByRole('heading', { name: 'Toolgate console' }).waitFor();
    await expectAccessible(page, 'sign in');
    await screenshot(page, '01-sign-in');
    await page.getByLabel('API token').fill(['tg', 'not-a-real-token'].join('_'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That token is not valid').waitFor();
    await page.getByLabel('API token').fill(stack.api.operatorToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Policies' }).waitFor();
    await page.getByText('No policies yet').waitFor();
    await expectAccessible(page, 'policies (empty)');

    // A new policy with a bad alias: the dry run names the field, in the YAML and in the form.
    await page.getByRole('link', { name: 'New policy' }).click();
    await page.getByRole('heading', { name: 'New policy' }).waitFor();
    await setEditorText(page, DRAFT_WITH_ERROR);
    const errorList = page.getByRole('alert', { name: 'Validation errors' });
    await errorList.locator('li', { hasText: 'rule 2: alias' }).waitFor();
    await page.locator('.cm-lintRange-error').first().waitFor();
    await expectAccessible(page, 'policy editor with an error');
    await screenshot(page, '02-policy-editor-field-error');

    await page.getByRole('tab', { name: 'Form' }).click();
    const alias = page.getByLabel('Provider alias');
    expect(await alias.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, '03-policy-form-field-error');
    await alias.fill('open_pull_request');
    await page.getByText('valid (dry run)').waitFor();
    expect(await errorList.count()).toBe(0);
    await expectAccessible(page, 'policy form');
    await page.getByRole('button', { name: 'Review and create…' }).click();
    await page.getByRole('dialog', { name: 'Review: new policy' }).waitFor();
    await page.getByRole('button', { name: 'Create policy' }).click();
    await page.waitForURL(/\/policies\/github-guardrails$/);
    await page.getByText('generation 1').first().waitFor();
    const stored = await stack.api.operator.call('mediationPolicies.get', {
      params: { name: 'github-guardrails' },
    });
    expect(stored.metadata.generation).toBe(1);

    // Preview the stored draft against the sample request: the hidden tool is gone.
    await page.getByRole('button', { name: 'Run preview' }).click();
    const after = page.getByRole('list', { name: 'Tools after' });
    await after.waitFor();
    expect(await after.getByText('delete_branch', { exact: true }).count()).toBe(0);
    await after.getByText('open_pull_request', { exact: true }).waitFor();
    expect(
      await page
        .getByRole('list', { name: 'Tools before' })
        .getByText('delete_branch', { exact: true })
        .count(),
    ).toBe(1);
    await expectAccessible(page, 'policy preview');
    await screenshot(page, '04-policy-preview');

    // Generation 2: one more rule, applied from the YAML view.
    await page.getByRole('tab', { name: 'YAML' }).click();
    const generation2 = `apiVersion: toolgate.dev/v1
kind: MediationPolicy
metadata:
  name: github-guardrails
  labels:
    team: platform
spec:
  mode: patch
  rules:
    - id: hide-deletes
      action: hide
      match:
        name: delete_branch
    - id: alias-pr
      action: rename
      match:
        name: create_pull_request
      alias: open_pull_request
    - id: annotate-search
      action: augment
      match:
        name: search_code
      description_append: Read-only; never pass credentials.
`;
    await setEditorText(page, generation2);
    await page.getByText('valid (dry run)').waitFor();
    await page.getByRole('button', { name: 'Review and apply…' }).click();
    await page.getByText('rule annotate-search added').waitFor();
    await page.getByRole('button', { name: 'Apply generation 2' }).click();
    await page.getByText('generation 2').first().waitFor();

    // History: pick generations 1 and 2, compare them side by side.
    await page.getByRole('tab', { name: 'History' }).click();
    await page.getByRole('checkbox', { name: 'Select generation 1 for diff' }).check();
    await page.getByRole('checkbox', { name: 'Select generation 2 for diff' }).check();
    await expectAccessible(page, 'policy history');
    await screenshot(page, '05-policy-history');
    await page.getByRole('button', { name: /Compare selected/ }).click();
    await page.waitForURL(/tab=diff/);
    expect(new URL(page.url()).searchParams.get('from')).toBe('1');
    expect(new URL(page.url()).searchParams.get('to')).toBe('2');
    await page
      .getByRole('list', { name: 'Spec changes' })
      .getByText('rule annotate-search added')
      .waitFor();
    await page.locator('.cm-mergeView').waitFor();
    await page.locator('.cm-changedLine').first().waitFor();
    await expectAccessible(page, 'policy diff');
    await screenshot(page, '06-policy-diff');

    // Roll back to generation 1: generation 3 with generation 1's spec.
    await page.getByRole('tab', { name: 'History' }).click();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Roll back to 1' }).click();
    await page.getByText('Rolled back: generation 3').waitFor();
    const rolled = await stack.api.operator.call('mediationPolicies.get', {
      params: { name: 'github-guardrails' },
    });
    expect(rolled.metadata.generation).toBe(3);
    expect((rolled.spec as { rules: unknown[] }).rules).toHaveLength(2);
    // History marks generation 3 as the rollback it is; generation 1 holds the current spec, so
    // rolling back to it again would change nothing and is not offered; generation 2 still is.
    const row = (generation: number) =>
      page.locator('tr', {
        has: page.getByRole('checkbox', { name: `Select generation ${generation} for diff` }),
      });
    await row(3).getByText('rolled back to generation 1').waitFor();
    await row(3).getByText('current', { exact: true }).waitFor();
    await row(1).getByText('same spec as current').waitFor();
    expect(await page.getByRole('button', { name: 'Roll back to 1' }).count()).toBe(0);
    expect(await row(1).getByRole('button').count()).toBe(0);
    await row(2).getByRole('button', { name: 'Roll back to 2' }).waitFor();
    expect(await row(2).getByText('rolled back', { exact: false }).count()).toBe(0);
    await screenshot(page, '07-policy-rolled-back');

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Policies' })
      .click();
    await page.getByRole('link', { name: 'github-guardrails' }).waitFor();
    await expectAccessible(page, 'policies list');
    await screenshot(page, '08-policies');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows an auditor no write controls, and the API refuses an auditor write anyway', async () => {
    const { token, client } = await stack.api.identity('alice-auditor', ['auditor']);
    const context = await signedInContext(browser, token);
    const page = await context.newPage();
    await page.goto(`${stack.console.url}/policies`);
    await page.getByRole('link', { name: 'github-guardrails' }).waitFor();
    await page.getByText('auditor', { exact: true }).first().waitFor();
    expect(await page.getByRole('link', { name: 'New policy' }).count()).toBe(0);

    await page.getByRole('link', { name: 'github-guardrails' }).click();
    await page.getByText('Read-only: your role cannot change policies.').waitFor();
    expect(await page.getByRole('button', { name: /Apply|Create policy/ }).count()).toBe(0);
    expect(await page.locator('.cm-content').getAttribute('contenteditable')).toBe('false');
    await page.getByRole('tab', { name: 'History' }).click();
    await page.getByRole('checkbox', { name: 'Select generation 1 for diff' }).waitFor();
    expect(await page.getByRole('button', { name: /Roll back/ }).count()).toBe(0);
    await expectAccessible(page, 'policy history (auditor)');
    await screenshot(page, '09-auditor-policy-history');

    await page.getByRole('link', { name: 'Identities' }).click();
    await page.getByRole('row', { name: /alice-auditor/ }).waitFor();
    expect(await page.getByRole('button', { name: 'Create identity' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Tokens of alice-auditor' }).click();
    await page.getByRole('table', { name: 'Tokens of alice-auditor' }).waitFor();
    expect(await page.getByRole('button', { name: /Revoke|Issue token/ }).count()).toBe(0);
    await screenshot(page, '10-auditor-identities');

    const write = await client
      .call('mediationPolicies.delete', { params: { name: 'github-guardrails' } })
      .then(
        () => 'accepted',
        (error: { httpStatus?: number }) => error.httpStatus,
      );
    expect(write).toBe(403);
    await context.close();
  });
});
