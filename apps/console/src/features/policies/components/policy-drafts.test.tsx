import { EditorView } from '@codemirror/view';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { Link } from 'react-router';
import { describe, expect, it } from 'vitest';
import { META, renderWithApi } from '../../../test/render.tsx';
import { draftKey } from '../draft/draft-store.ts';
import { PolicyPage } from './policy-page.tsx';

const ITEM = '/apis/toolgate.dev/v1/mediationpolicies/repo-guard';
const SPEC = {
  selector: {},
  priority: 0,
  mode: 'patch',
  unknownIdentities: 'unverified',
  rules: [{ id: 'hide-deletes', action: 'hide', match: { name: 'delete_branch' } }],
};
const POLICY = {
  apiVersion: 'toolgate.dev/v1',
  kind: 'MediationPolicy',
  metadata: { ...META, name: 'repo-guard' },
  spec: SPEC,
  status: { revisionHash: `sha256:${'a'.repeat(64)}` },
};
const REVISION = {
  name: 'repo-guard',
  generation: 1,
  hash: `sha256:${'a'.repeat(64)}`,
  author: 'alice',
  createdAt: '2026-01-01T00:00:00Z',
  spec: SPEC,
};

function editorText(): string {
  const element = document.querySelector('.cm-editor');
  const view = element instanceof HTMLElement ? EditorView.findFromDOM(element) : null;
  if (!view) throw new Error('no editor');
  return view.state.doc.toString();
}

function typeAtEnd(text: string): void {
  const element = document.querySelector('.cm-editor') as HTMLElement;
  const view = EditorView.findFromDOM(element) as EditorView;
  act(() => view.dispatch({ changes: { from: view.state.doc.length, insert: text } }));
}

function renderPage() {
  return renderWithApi(
    <>
      <Link to="/receipts">Receipts</Link>
      <PolicyPage />
    </>,
    {
      path: '/policies/:name',
      route: '/policies/repo-guard',
      responses: {
        [`GET ${ITEM}`]: { body: POLICY },
        [`GET ${ITEM}/revisions`]: { body: { items: [REVISION] } },
        [`PUT ${ITEM}`]: { body: { valid: true } },
      },
    },
  );
}

describe('Policy drafts survive switching tabs and are guarded against leaving', () => {
  it('keeps the draft across the History tab and back', async () => {
    renderPage();
    await screen.findByRole('textbox', { name: 'Policy YAML for repo-guard' });
    typeAtEnd('# keep me\n');
    fireEvent.click(screen.getByRole('tab', { name: 'History' }));
    await screen.findByText('alice');
    expect(document.querySelector('.cm-editor')).toBeNull();
    fireEvent.click(screen.getByRole('tab', { name: 'Editor' }));
    await screen.findByRole('textbox', { name: 'Policy YAML for repo-guard' });
    expect(editorText()).toContain('# keep me');
    expect(screen.getByText('Unsaved draft restored.')).toBeTruthy();

    // Discarding drops it for good.
    fireEvent.click(screen.getByRole('button', { name: 'Discard changes' }));
    expect(editorText()).not.toContain('# keep me');
    expect(sessionStorage.getItem(draftKey('repo-guard'))).toBeNull();
  });

  it('asks before leaving the page in the app, and before closing the browser tab', async () => {
    renderPage();
    await screen.findByRole('textbox', { name: 'Policy YAML for repo-guard' });
    const unload = () => {
      const event = new Event('beforeunload', { cancelable: true });
      window.dispatchEvent(event);
      return event.defaultPrevented;
    };
    expect(unload()).toBe(false);
    typeAtEnd('# unsaved\n');
    await waitFor(() => expect(unload()).toBe(true));

    fireEvent.click(screen.getByRole('link', { name: 'Receipts' }));
    const prompt = await screen.findByRole('alertdialog', { name: 'Unsaved changes' });
    expect(document.activeElement?.textContent).toBe('Stay on this page');
    fireEvent.click(screen.getByRole('button', { name: 'Stay on this page' }));
    expect(prompt.isConnected).toBe(false);
    expect(editorText()).toContain('# unsaved');

    fireEvent.click(screen.getByRole('link', { name: 'Receipts' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Leave, keep the draft' }));
    await screen.findByText('Elsewhere');
    expect(JSON.parse(sessionStorage.getItem(draftKey('repo-guard')) ?? '{}').text).toContain(
      '# unsaved',
    );
  });

  it('a restored draft of an older generation says so, and applies against that generation', async () => {
    const old =
      'apiVersion: toolgate.dev/v1\nkind: MediationPolicy\nmetadata:\n  name: repo-guard\nspec:\n  rules: [] # old draft\n';
    sessionStorage.setItem(draftKey('repo-guard'), JSON.stringify({ base: '0', text: old }));
    const sent: unknown[] = [];
    renderWithApi(<PolicyPage />, {
      path: '/policies/:name',
      route: '/policies/repo-guard',
      responses: {
        [`GET ${ITEM}`]: { body: POLICY },
        [`PUT ${ITEM}`]: ({ url, body }) => {
          if (!url.searchParams.has('dryRun')) sent.push(body);
          return url.searchParams.has('dryRun')
            ? { body: POLICY }
            : {
                status: 409,
                body: { kind: 'Status', code: 409, reason: 'Conflict', message: 'conflict' },
              };
        },
      },
    });
    expect(await screen.findByText(/The policy has changed since this draft/)).toBeTruthy();
    expect(editorText()).toContain('# old draft');
    const review = screen.getByRole('button', { name: 'Review and apply…' });
    await waitFor(() => expect(review.hasAttribute('disabled')).toBe(false));
    fireEvent.click(review);
    fireEvent.click(screen.getByRole('button', { name: 'Apply generation 2' }));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect((sent[0] as { metadata: { resourceVersion: string } }).metadata.resourceVersion).toBe(
      '0',
    );
  });
});
