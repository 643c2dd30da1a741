import { EditorView } from '@codemirror/view';
import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithApi } from '../../../test/render.tsx';
import { PolicyEditor } from './policy-editor.tsx';

const POLICIES = 'POST /apis/toolgate.dev/v1/mediationpolicies';
const USER_YAML = `kind: MediationPolicy
apiVersion: toolgate.dev/v1
metadata: { name: odd-one }
spec:
  # the user's own order
  rules:
    - action: quarantine
      id: q
      match:
        name: delete_branch
        provider: openai
  priority: 1
`;

function view(): EditorView {
  const element = document.querySelector('.cm-editor') as HTMLElement;
  return EditorView.findFromDOM(element) as EditorView;
}

function typeYaml(text: string): void {
  const editor = view();
  act(() => editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } }));
}

describe('PolicyForm shows what the YAML holds', () => {
  it('an action that is none of the form’s is shown as it is, with what to do; unshown parts are listed', async () => {
    renderWithApi(<PolicyEditor canWrite />, {
      responses: { [POLICIES]: { status: 201, body: {} } },
    });
    typeYaml(USER_YAML);
    fireEvent.click(screen.getByRole('tab', { name: 'Form' }));
    const action = screen.getByLabelText('Action') as HTMLSelectElement;
    expect(action.value).toBe('quarantine');
    expect(action.selectedOptions[0]?.textContent).toBe('quarantine (not valid)');
    expect(action.getAttribute('aria-invalid')).toBe('true');
    expect(
      screen.getByText(/the YAML has action "quarantine", which is not one of hide/),
    ).toBeTruthy();
    const note = screen.getByRole('note', { name: 'Only in the YAML' });
    expect(note.textContent).toContain('rule 1 (q): match.provider');
  });

  it('an edit in the form keeps the YAML’s key order, flow style and comments', async () => {
    renderWithApi(<PolicyEditor canWrite />, {
      responses: { [POLICIES]: { status: 201, body: {} } },
    });
    typeYaml(USER_YAML);
    fireEvent.click(screen.getByRole('tab', { name: 'Form' }));
    fireEvent.change(screen.getByLabelText('Priority'), { target: { value: '7' } });
    fireEvent.change(screen.getByLabelText('Action'), { target: { value: 'hide' } });
    fireEvent.click(screen.getByRole('tab', { name: 'YAML' }));
    expect(view().state.doc.toString()).toBe(
      USER_YAML.replace('priority: 1', 'priority: 7').replace('quarantine', 'hide'),
    );
  });
});
