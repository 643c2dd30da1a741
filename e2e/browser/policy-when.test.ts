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
 * A rule's `when:` (CEL) that does not compile is refused by the API with its position
 * (`spec.rules[i].when: line:col: …`, shown as "rule i+1: `when` line:col: …"); the editor shows it where it is — the token underlined at
 * the rule's `when:` line, the message right under that line — on the dry run and on save, and
 * the form next to the rule's condition. Fixed, it goes, and the policy saves; a policy using
 * the call-time actions then shows them.
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

const policy = (searchBudgetWhen: string, mailWhen = "!args.to.endsWith('@acme.com')") =>
  `apiVersion: toolgate.dev/v1
kind: MediationPolicy
metadata:
  name: call-time-guards
spec:
  mode: patch
  rules:
    - id: pr-only-in-app-repo
      action: deny
      match:
        name: create_pull_request
      when: "args.repo != 'acme/app'"
      message: Pull requests may only be opened in acme/app.
    - id: external-mail-needs-approval
      action: require_approval
      match:
        name: send_email
      when: "${mailWhen}"
      approval:
        ttl: 1h
    - id: search-budget
      action: rate_limit
      match:
        name: web_search
      when: |
        identity.human != '' &&
        ${searchBudgetWhen}
      limit:
        calls: 10
        per: 1m
        by: identity
`;

/** Replaces the whole YAML editor content with `text`. */
async function setEditorText(page: Page, text: string): Promise<void> {
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

/** The 1-based editor line an element is on (the small document is rendered whole). */
async function lineNumberOf(page: Page, selector: string): Promise<number> {
  return page.evaluate(`(() => {
    const line = document.querySelector(${JSON.stringify(selector)})?.closest('.cm-line');
    return [...document.querySelectorAll('.cm-content > .cm-line')].indexOf(line) + 1;
  })()`) as Promise<number>;
}

/** Which line (1-based) of `text` contains `needle`. */
const lineOfText = (text: string, needle: string) =>
  text.split('\n').findIndex((line) => line.includes(needle)) + 1;

describe('when: errors in the policy editor', () => {
  it('shows a bad when: at its line and keeps the draft from being applied; fixed, the policy saves', async () => {
    const context = await signedInContext(browser, stack.api.operatorToken);
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(`${stack.console.url}/policies/new`);
    await page.getByRole('heading', { name: 'New policy' }).waitFor();

    // Dry run: a name CEL does not know, on the second line of a block scalar.
    const bad = policy("history.tools.exists(t, t == 'web_fetch') || budgett > 3");
    await setEditorText(page, bad);
    const inline = page.locator('.cm-inline-error');
    await inline.waitFor();
    expect(await inline.textContent()).toMatch(
      /^rule 3: when 2:46: undeclared reference 'budgett'/,
    );
    const underline = page.locator('.cm-lintRange-error');
    expect(await underline.count()).toBe(1);
    expect(await underline.textContent()).toBe('budgett');
    const expectedLine = lineOfText(bad, 'budgett');
    expect(await lineNumberOf(page, '.cm-lintRange-error')).toBe(expectedLine);
    // The message sits right under that line, and the gutter marks it.
    expect(
      await page.evaluate(
        `document.querySelector('.cm-inline-error').previousElementSibling.textContent`,
      ),
    ).toContain('budgett > 3');
    const marker = await page.locator('.cm-lint-marker-error').boundingBox();
    const lineBox = await underline.boundingBox();
    expect(marker && lineBox && Math.abs(marker.y - lineBox.y) < lineBox.height).toBe(true);
    await page
      .getByRole('alert', { name: 'Validation errors' })
      .getByText(/^rule 3: when 2:46: undeclared reference 'budgett'/)
      .waitFor();
    await expectAccessible(page, 'policy editor with a when: error');
    await screenshot(page, 'when-01-inline-error');

    // The form shows it next to that rule's condition.
    await page.getByRole('tab', { name: 'Form' }).click();
    const conditions = page.getByLabel('Condition (when)');
    expect(await conditions.nth(2).getAttribute('aria-invalid')).toBe('true');
    expect(await conditions.nth(0).getAttribute('aria-invalid')).toBe('false');
    await page.getByText(/^2:46: undeclared reference 'budgett'/).waitFor();
    await expectAccessible(page, 'policy form with a when: error');
    await screenshot(page, 'when-02-form-error');
    await page.getByRole('tab', { name: 'YAML' }).click();

    // Fixed: the error goes.
    const good = policy("history.tools.exists(t, t == 'web_fetch') || size(history.calls) > 3");
    await setEditorText(page, good);
    await page.getByText('valid (dry run)').waitFor();
    expect(await inline.count()).toBe(0);
    expect(await underline.count()).toBe(0);

    // A mistake the policy schema reports (not the CEL compiler): `args` in a request-side rule.
    // It is shown at its line too, and the draft cannot be applied while it stands.
    const argsInHide = `${good}    - id: hide-big-writes
      action: hide
      match:
        name: write_file
      when: "size(args.content) > 1000"
`;
    await setEditorText(page, argsInHide);
    await inline.waitFor();
    expect(await inline.textContent()).toMatch(
      /^rule 4: when 1:6: 'args' is only defined for call-time actions/,
    );
    expect(await underline.textContent()).toBe('args');
    expect(await lineNumberOf(page, '.cm-lintRange-error')).toBe(
      lineOfText(argsInHide, 'size(args.content)'),
    );
    expect(await page.getByRole('button', { name: 'Review and create…' }).isDisabled()).toBe(true);
    expect(page.url()).toMatch(/\/policies\/new$/);
    await screenshot(page, 'when-03-save-refused');

    // Fixed and saved.
    const fixed = argsInHide.replace(
      'when: "size(args.content) > 1000"',
      'when: "identity.human.startsWith(\'contractor-\')"',
    );
    await setEditorText(page, fixed);
    await page.getByText('valid (dry run)').waitFor();
    expect(await inline.count()).toBe(0);
    await page.getByRole('button', { name: 'Review and create…' }).click();
    await page
      .getByRole('dialog', { name: 'Review: new policy' })
      .getByRole('button', { name: 'Create policy' })
      .click();
    await page.waitForURL(/\/policies\/call-time-guards$/);
    const stored = await stack.api.operator.call('mediationPolicies.get', {
      params: { name: 'call-time-guards' },
    });
    const rules = (stored.spec as { rules: Array<{ action: string; when?: string }> }).rules;
    expect(rules.map((r) => r.action)).toEqual(['deny', 'require_approval', 'rate_limit', 'hide']);
    expect(rules[3]?.when).toBe("identity.human.startsWith('contractor-')");

    // The call-time actions display: summarised by action on the policy page and the list,
    // and editable in the form.
    await page.getByText('deny (when)').first().waitFor();
    await page.getByText('require_approval (when)').first().waitFor();
    await page.getByRole('tab', { name: 'Form' }).click();
    expect(await page.getByLabel('Approval valid for').inputValue()).toBe('1h');
    expect(await page.getByLabel('Calls allowed').inputValue()).toBe('10');
    expect(await page.getByLabel('Counted per').inputValue()).toBe('identity');
    // A condition over several lines keeps its line breaks in the form.
    expect(await page.getByLabel('Condition (when)').nth(2).inputValue()).toBe(
      "identity.human != '' &&\nhistory.tools.exists(t, t == 'web_fetch') || size(history.calls) > 3\n",
    );
    expect(await page.getByLabel('Message to the agent').first().inputValue()).toBe(
      'Pull requests may only be opened in acme/app.',
    );
    await expectAccessible(page, 'policy form with call-time rules');
    await screenshot(page, 'when-04-call-time-form');
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Policies' })
      .click();
    const row = page.getByRole('row', { name: /call-time-guards/ });
    await row.getByText('rate_limit (when)').waitFor();
    await row.getByText('hide (when)').waitFor();
    await expectAccessible(page, 'policies list with call-time rules');
    await screenshot(page, 'when-05-policies');
    expect(errors).toEqual([]);
    await context.close();
  });
});
