import { EditorView } from '@codemirror/view';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { issuesToCauses, MediationPolicyInput } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { META, renderWithApi } from '../../../test/render.tsx';
import { PolicyEditor } from './policy-editor.tsx';

const POLICIES = 'POST /apis/toolgate.dev/v1/mediationpolicies';

/** The API's answer to a create, dry run or not: the core schema decides, as in the API. */
function createPolicy({ body }: { body: unknown }) {
  const parsed = MediationPolicyInput.safeParse(body);
  if (parsed.success) {
    return {
      status: 201,
      body: { ...parsed.data, metadata: { ...META, ...parsed.data.metadata }, status: {} },
    };
  }
  const causes = issuesToCauses(parsed.error.issues);
  return {
    status: 422,
    body: {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 422,
      reason: 'Invalid',
      message: `MediationPolicy is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join('; ')}`,
      details: { kind: 'MediationPolicy', causes },
    },
  };
}

const policy = (when: string) => `apiVersion: toolgate.dev/v1
kind: MediationPolicy
metadata:
  name: repo-guard
spec:
  rules:
    - id: hide-deletes
      action: hide
      match:
        name: delete_branch
    - id: pr-only-in-app-repo
      action: deny
      match:
        name: create_pull_request
      when: ${when}
      message: Pull requests may only be opened in acme/app.
`;
const BAD = policy(`"args.repo != 'acme/app' && repository == 'x'"`);
const GOOD = policy(`"args.repo != 'acme/app'"`);

function editor(): EditorView {
  const element = document.querySelector('.cm-editor');
  const view = element instanceof HTMLElement ? EditorView.findFromDOM(element) : null;
  if (!view) throw new Error('no editor');
  return view;
}

function type(text: string): void {
  const view = editor();
  act(() => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }));
}

/** The line of the editor (a `.cm-line`) an element sits in. */
const lineOf = (element: Element) => element.closest('.cm-line')?.textContent ?? '';

describe('PolicyEditor: a when: error is shown where it is', () => {
  it('underlines the token and shows the message under its line, on dry run and on save', async () => {
    const { calls } = renderWithApi(<PolicyEditor canWrite />, {
      responses: { [POLICIES]: createPolicy },
    });
    await screen.findByText('valid (dry run)');

    type(BAD);
    const inline = await waitFor(() => {
      const found = document.querySelector('.cm-inline-error');
      expect(found?.textContent).toMatch(/^rule 2: when 1:28: undeclared reference/);
      return found as Element;
    });
    // The widget sits right under the `when:` line; the underline is the unknown name itself.
    expect(inline.previousElementSibling?.textContent).toContain('when: "args.repo');
    const underline = document.querySelector('.cm-lintRange-error');
    expect(underline?.textContent).toBe('repository');
    expect(lineOf(underline as Element)).toContain('when:');
    expect(screen.getByRole('alert', { name: 'Validation errors' }).textContent).toContain(
      'rule 2: when 1:28',
    );

    // The form shows it next to the rule's condition.
    fireEvent.click(screen.getByRole('tab', { name: 'Form' }));
    const conditions = screen.getAllByLabelText('Condition (when)');
    expect(conditions[1]?.getAttribute('aria-invalid')).toBe('true');
    expect(conditions[0]?.getAttribute('aria-invalid')).toBe('false');
    const describedBy = conditions[1]?.getAttribute('aria-describedby')?.split(' ') ?? [];
    const description = describedBy.map((id) => document.getElementById(id)?.textContent);
    expect(description[0]).toMatch(/^1:28: undeclared reference 'repository'/);
    fireEvent.click(screen.getByRole('tab', { name: 'YAML' }));

    // Fixed: the error goes.
    type(GOOD);
    await screen.findByText('valid (dry run)');
    expect(document.querySelector('.cm-inline-error')).toBeNull();
    expect(document.querySelector('.cm-lintRange-error')).toBeNull();

    // With the mistake, Apply is off (while checking too), and says why.
    type(BAD);
    const review = screen.getByRole('button', { name: 'Review and create…' });
    expect(review.hasAttribute('disabled')).toBe(true);
    await screen.findByText('invalid');
    expect(review.hasAttribute('disabled')).toBe(true);
    expect(screen.getByText('Fix the errors to apply.')).toBeTruthy();

    // Fixed and saved: created.
    type(GOOD);
    await screen.findByText('valid (dry run)');
    expect(document.querySelector('.cm-inline-error')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Review and create…' }));
    const dialog = screen.getByRole('dialog', { name: 'Review: new policy' });
    expect(dialog.textContent).toContain('rule hide-deletes added');
    fireEvent.change(screen.getByLabelText('Change note (optional)'), {
      target: { value: 'first cut' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Create policy' }));
    await waitFor(() => expect(calls).toContain(`${POLICIES}?changeNote=first+cut`));
    expect(screen.queryByRole('alert', { name: 'Validation errors' })).toBeNull();
  });
});

describe('PolicyEditor: validation errors read as sentences', () => {
  it('says "rule 2: `match` is required", not zod text, in the list and in the form', async () => {
    renderWithApi(<PolicyEditor canWrite />, { responses: { [POLICIES]: createPolicy } });
    await screen.findByText('valid (dry run)');
    type(GOOD.replace('      match:\n        name: create_pull_request\n', ''));
    const list = await screen.findByRole('alert', { name: 'Validation errors' });
    expect(list.textContent).toContain('rule 2: match is required');
    expect(list.querySelector('code')?.textContent).toBe('match');
    expect(list.textContent).not.toContain('Invalid input');
    fireEvent.click(screen.getByRole('tab', { name: 'Form' }));
    const names = screen.getAllByLabelText('Tool name');
    const described = names[1]?.getAttribute('aria-describedby')?.split(' ') ?? [];
    expect(described.map((id) => document.getElementById(id)?.textContent)).toContain(
      'is required',
    );
  });
});
