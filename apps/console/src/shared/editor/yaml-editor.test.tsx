import { EditorView } from '@codemirror/view';
import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { YamlEditor } from './yaml-editor.tsx';

function editor(): EditorView {
  const element = document.querySelector('.cm-editor');
  const view = element instanceof HTMLElement ? EditorView.findFromDOM(element) : null;
  if (!view) throw new Error('no editor');
  return view;
}

describe('YamlEditor: Tab is no keyboard trap', () => {
  it('says on screen how to leave, and the editor names that hint as its description', () => {
    render(<YamlEditor value={'a: 1\n'} label="Policy YAML" />);
    const content = screen.getByRole('textbox', { name: 'Policy YAML' });
    const hint = document.getElementById(content.getAttribute('aria-describedby') ?? '');
    expect(hint?.textContent).toBe('Tab indents. Press Esc then Tab to leave the editor.');
  });

  it('Escape arms the tab-focus mode: the next Tab is not taken by the editor', () => {
    render(<YamlEditor value={'a: 1\n'} label="Policy YAML" />);
    const view = editor();
    const content = screen.getByRole('textbox', { name: 'Policy YAML' });
    // Plain Tab indents: CodeMirror handles it (the default is prevented).
    const tab = () => fireEvent.keyDown(content, { key: 'Tab', keyCode: 9 });
    expect(tab()).toBe(false);
    expect(view.state.doc.toString()).toBe('  a: 1\n');
    // Escape, then Tab: left to the browser (not prevented), so focus moves on.
    fireEvent.keyDown(content, { key: 'Escape', keyCode: 27 });
    expect(tab()).toBe(true);
    expect(view.state.doc.toString()).toBe('  a: 1\n');
  });

  it('read-only: no hint, and the content stays focusable', () => {
    render(<YamlEditor value={'a: 1\n'} label="Policy YAML" readOnly />);
    expect(screen.queryByText(/to leave the editor/)).toBeNull();
    expect(screen.getByRole('textbox', { name: 'Policy YAML' }).getAttribute('tabindex')).toBe('0');
  });
});
