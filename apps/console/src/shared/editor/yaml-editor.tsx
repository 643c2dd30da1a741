import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { bracketMatching, syntaxHighlighting } from '@codemirror/language';
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import {
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { useEffect, useId, useRef } from 'react';
import { themedHighlightStyle } from './highlight-style.ts';
import { inlineMessages, setInlineMessages } from './inline-messages.ts';

export interface EditorDiagnostic {
  from: number;
  to: number;
  message: string;
}

/** The extensions shared by the editor and the diff view: YAML with syntax highlighting. */
export function yamlExtensions() {
  return [yaml(), syntaxHighlighting(themedHighlightStyle)];
}

/**
 * A CodeMirror 6 YAML editor. Server-side validation errors arrive as `diagnostics` and are
 * shown in place (underline + gutter marker, and the message under the line). Tab indents;
 * Escape then Tab (or Shift-Tab) leaves the editor — CodeMirror's own tab-focus mode — so it is
 * no keyboard trap, and the hint under the editor says so (WCAG 2.1.2 asks that it be told).
 */
export function YamlEditor(props: {
  value: string;
  onChange?: (value: string) => void;
  readOnly?: boolean;
  diagnostics?: ReadonlyArray<EditorDiagnostic>;
  label: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const hintId = useId();
  const view = useRef<EditorView | null>(null);
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;
  useEffect(() => {
    if (!host.current) return;
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: props.value,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightActiveLine(),
          history(),
          bracketMatching(),
          lintGutter(),
          inlineMessages,
          keymap.of([indentWithTab, ...defaultKeymap, ...historyKeymap]),
          ...yamlExtensions(),
          EditorState.readOnly.of(props.readOnly ?? false),
          EditorView.editable.of(!props.readOnly),
          EditorView.contentAttributes.of({
            'aria-label': props.label,
            'aria-multiline': 'true',
            ...(props.readOnly
              ? { 'aria-readonly': 'true', tabindex: '0' }
              : { 'aria-describedby': hintId }),
          }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) onChange.current?.(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
  }, [props.readOnly, props.label]);

  // Outside changes (form view, reset) replace the document; typing does not loop back here.
  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const current = editor.state.doc.toString();
    if (current !== props.value) {
      editor.dispatch({ changes: { from: 0, to: current.length, insert: props.value } });
    }
  }, [props.value]);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const length = editor.state.doc.length;
    const diagnostics: Diagnostic[] = (props.diagnostics ?? []).map((d) => ({
      from: Math.min(d.from, length),
      to: Math.min(Math.max(d.to, d.from), length),
      severity: 'error',
      message: d.message,
    }));
    editor.dispatch(setDiagnostics(editor.state, diagnostics), {
      effects: setInlineMessages.of(diagnostics.map((d) => ({ at: d.from, message: d.message }))),
    });
  }, [props.diagnostics]);

  return (
    <div className="code-editor-wrap">
      <div className="code-editor" ref={host} />
      {props.readOnly ? null : (
        // Read-only, Tab is not bound: it leaves as anywhere else.
        <p className="field-hint editor-hint" id={hintId}>
          <kbd>Tab</kbd> indents. Press <kbd>Esc</kbd> then <kbd>Tab</kbd> to leave the editor.
        </p>
      )}
    </div>
  );
}
