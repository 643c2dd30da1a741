import { MergeView } from '@codemirror/merge';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { useEffect, useRef } from 'react';
import { yamlExtensions } from './yaml-editor.tsx';

/** Side-by-side, read-only diff of two texts (YAML or JSON), changes highlighted. */
export function DiffView(props: {
  left: string;
  right: string;
  leftLabel: string;
  rightLabel: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return;
    const side = (label: string) => [
      ...yamlExtensions(),
      EditorView.lineWrapping,
      EditorState.readOnly.of(true),
      EditorView.editable.of(false),
      // Focusable although read-only, so keyboard users can scroll a long schema.
      EditorView.contentAttributes.of({
        'aria-label': label,
        'aria-readonly': 'true',
        tabindex: '0',
      }),
    ];
    const view = new MergeView({
      parent: host.current,
      a: { doc: props.left, extensions: side(props.leftLabel) },
      b: { doc: props.right, extensions: side(props.rightLabel) },
      highlightChanges: true,
      gutter: true,
    });
    return () => view.destroy();
  }, [props.left, props.right, props.leftLabel, props.rightLabel]);
  return (
    <figure className="diff-view">
      <figcaption className="diff-captions">
        <span>{props.leftLabel}</span>
        <span>{props.rightLabel}</span>
      </figcaption>
      <div ref={host} />
    </figure>
  );
}
