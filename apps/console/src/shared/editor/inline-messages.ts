import { type EditorState, StateEffect, StateField } from '@codemirror/state';
import { Decoration, type DecorationSet, EditorView, WidgetType } from '@codemirror/view';

export interface InlineMessage {
  /** A document offset: the message shows below the line that holds it. */
  at: number;
  message: string;
}

/** Replaces the messages shown below their lines (an empty list clears them). */
export const setInlineMessages = StateEffect.define<ReadonlyArray<InlineMessage>>();

/**
 * The text of each error right under its line, not only in a hover tooltip: an operator sees
 * `spec.rules[1].when: 1:13: undeclared reference 'foo'` where the mistake is. Hidden from
 * assistive technology, which gets the same messages from the editor's error list (an alert)
 * and the lint diagnostics.
 */
export const inlineMessages = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(decorations, transaction) {
    let next = decorations.map(transaction.changes);
    for (const effect of transaction.effects) {
      if (effect.is(setInlineMessages)) next = build(transaction.state, effect.value);
    }
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});

class MessagesWidget extends WidgetType {
  constructor(readonly messages: ReadonlyArray<string>) {
    super();
  }

  override eq(other: MessagesWidget): boolean {
    return other.messages.join('\n') === this.messages.join('\n');
  }

  toDOM(): HTMLElement {
    const block = document.createElement('div');
    block.className = 'cm-inline-error';
    block.setAttribute('aria-hidden', 'true');
    for (const message of this.messages) {
      const line = document.createElement('div');
      line.textContent = message;
      block.append(line);
    }
    return block;
  }
}

function build(state: EditorState, messages: ReadonlyArray<InlineMessage>): DecorationSet {
  const byLine = new Map<number, string[]>();
  for (const { at, message } of messages) {
    const line = state.doc.lineAt(Math.min(Math.max(at, 0), state.doc.length));
    byLine.set(line.to, [...(byLine.get(line.to) ?? []), message]);
  }
  return Decoration.set(
    [...byLine].map(([lineEnd, lineMessages]) =>
      Decoration.widget({ widget: new MessagesWidget(lineMessages), block: true, side: 1 }).range(
        lineEnd,
      ),
    ),
    true,
  );
}
