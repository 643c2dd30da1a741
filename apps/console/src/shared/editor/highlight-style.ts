import { HighlightStyle } from '@codemirror/language';
import { tags } from '@lezer/highlight';

/**
 * Syntax colours as CSS custom properties (tokens.css), so YAML and JSON read well, with AA
 * contrast, in the light and the dark theme alike: CodeMirror's default style has fixed colours
 * made for a white page (dark purple and brown on a dark page fail contrast).
 */
export const themedHighlightStyle = HighlightStyle.define([
  { tag: [tags.keyword, tags.operatorKeyword, tags.modifier], color: 'var(--code-keyword)' },
  { tag: [tags.atom, tags.bool, tags.null], color: 'var(--code-atom)' },
  { tag: [tags.number, tags.integer, tags.float], color: 'var(--code-number)' },
  { tag: [tags.string, tags.special(tags.string), tags.regexp], color: 'var(--code-string)' },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: 'var(--code-comment)' },
  {
    tag: [tags.propertyName, tags.definition(tags.propertyName), tags.labelName],
    color: 'var(--code-property)',
  },
  { tag: [tags.meta, tags.processingInstruction, tags.typeName], color: 'var(--code-meta)' },
  { tag: tags.invalid, color: 'var(--bad)' },
]);
