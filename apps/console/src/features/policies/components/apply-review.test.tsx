import { EditorView } from '@codemirror/view';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { META, renderWithApi } from '../../../test/render.tsx';
import { PolicyPage } from './policy-page.tsx';

const ITEM = '/apis/toolgate.dev/v1/mediationpolicies/repo-guard';
const SPEC = {
  selector: {},
  priority: 0,
  mode: 'patch',
  unknownIdentities: 'unverified',
  rules: [{ id: 'hide-destructive', action: 'hide', match: { name: 'delete_branch' } }],
};
const POLICY = {
  apiVersion: 'toolgate.dev/v1',
  kind: 'MediationPolicy',
  metadata: { ...META, name: 'repo-guard' },
  spec: SPEC,
  status: {},
};

function edit(from: string, to: string): void {
  const view = EditorView.findFromDOM(document.querySelector('.cm-editor') as HTMLElement);
  if (!view) throw new Error('no editor');
  const text = view.state.doc.toString();
  const at = text.indexOf(from);
  act(() => view.dispatch({ changes: { from: at, to: at + from.length, insert: to } }));
}

describe('Apply goes through a review step', () => {
  it('lists the changes in words, takes a note, sends it, and confirms the new generation', async () => {
    const { calls } = renderWithApi(<PolicyPage />, {
      path: '/policies/:name',
      route: '/policies/repo-guard',
      responses: {
        [`GET ${ITEM}`]: { body: POLICY },
        [`PUT ${ITEM}`]: ({ body }) => ({
          body: {
            ...(body as object),
            metadata: { ...META, name: 'repo-guard', generation: 2, resourceVersion: '2' },
            status: {},
          },
        }),
        [`GET ${ITEM}/revisions`]: { body: { items: [] } },
      },
    });
    await screen.findByRole('textbox', { name: 'Policy YAML for repo-guard' });
    const review = screen.getByRole('button', { name: 'Review and apply…' });
    // Nothing changed yet: nothing to apply.
    expect(review.hasAttribute('disabled')).toBe(true);
    edit('action: hide', 'action: deny');
    await waitFor(() => expect(review.hasAttribute('disabled')).toBe(false));
    fireEvent.click(review);

    const dialog = screen.getByRole('dialog', { name: 'Review: generation 2 of repo-guard' });
    expect([...dialog.querySelectorAll('li')].map((li) => li.textContent)).toEqual([
      'rule hide-destructive: action changed from hide to deny',
    ]);
    expect(document.activeElement?.id).toBe('review-title');
    fireEvent.change(screen.getByLabelText('Change note (optional)'), {
      target: { value: '  INC-42:\tagents deleted a branch ' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Apply generation 2' }));

    const done = await screen.findByText(/Applied: generation 2 of repo-guard/);
    expect(done.textContent).toContain('Note: “INC-42: agents deleted a branch”');
    expect(calls).toContain(`PUT ${ITEM}?changeNote=INC-42%3A+agents+deleted+a+branch`);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('Back to editing sends nothing', async () => {
    const { calls } = renderWithApi(<PolicyPage />, {
      path: '/policies/:name',
      route: '/policies/repo-guard',
      responses: {
        [`GET ${ITEM}`]: { body: POLICY },
        [`PUT ${ITEM}`]: { body: POLICY },
      },
    });
    await screen.findByRole('textbox', { name: 'Policy YAML for repo-guard' });
    edit('priority: 0', 'priority: 3');
    const review = screen.getByRole('button', { name: 'Review and apply…' });
    await waitFor(() => expect(review.hasAttribute('disabled')).toBe(false));
    fireEvent.click(review);
    expect(screen.getByText('priority changed from 0 to 3')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Back to editing' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(calls.filter((c) => c.startsWith('PUT') && !c.includes('dryRun'))).toEqual([]);
  });
});
