import { isNode, isScalar, LineCounter, parseDocument } from 'yaml';
import { scalarOffsets } from './scalar-offsets.ts';

/** `spec.rules[2].match.name` → `['spec', 'rules', 2, 'match', 'name']` */
export function parseFieldPath(field: string): Array<string | number> {
  const path: Array<string | number> = [];
  for (const match of field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (match[2] !== undefined) path.push(Number(match[2]));
    else if (match[1] !== undefined) path.push(match[1]);
  }
  return path;
}

/**
 * Where a field path points in YAML text: the deepest node of the path that exists (a missing
 * key is reported at its parent), as a character range; the whole first line when nothing does.
 */
export function rangeOfField(text: string, field: string): { from: number; to: number } {
  const doc = parseDocument(text, { lineCounter: new LineCounter() });
  const path = parseFieldPath(field);
  for (let length = path.length; length > 0; length--) {
    const node = doc.getIn(path.slice(0, length), true);
    if (isNode(node) && node.range) {
      const [from, , to] = node.range;
      // Collections span their whole block: underline the first line only.
      const newline = text.indexOf('\n', from);
      return { from, to: newline !== -1 && newline < to ? newline : to };
    }
  }
  const firstLine = text.indexOf('\n');
  return { from: 0, to: firstLine === -1 ? text.length : firstLine };
}

/** `2:7: undeclared reference 'foo'`: a message that points inside its field's value. */
const POSITIONED = /^(\d+):(\d+): /;

/**
 * Where a validation cause belongs in YAML text. A message that starts with `line:col` (a CEL
 * `when:` error) points inside the field's string value: the range is the token at that
 * position (`foo` of `undeclared reference 'foo'`), placed through the scalar's quoting,
 * escapes and folding. Anything else, or a value this cannot place, gets the field's range.
 */
export function rangeOfCause(
  text: string,
  cause: { field: string; message: string },
): { from: number; to: number } {
  const position = POSITIONED.exec(cause.message);
  if (position) {
    const inside = rangeInValue(text, cause.field, Number(position[1]), Number(position[2]));
    if (inside) return inside;
  }
  return rangeOfField(text, cause.field);
}

/** The token at `line:col` (1-based, UTF-16 columns) of a string field's value, in the text. */
export function rangeInValue(
  text: string,
  field: string,
  line: number,
  column: number,
): { from: number; to: number } | undefined {
  const doc = parseDocument(text, { lineCounter: new LineCounter() });
  if (doc.errors.length > 0) return undefined;
  const node = doc.getIn(parseFieldPath(field), true);
  if (!isScalar(node) || typeof node.value !== 'string') return undefined;
  const decoded = scalarOffsets(text, node);
  if (!decoded) return undefined;
  const value = node.value;
  const lines = value.split('\n');
  if (line < 1 || line > lines.length || column < 1) return undefined;
  const lineStart = lines.slice(0, line - 1).reduce((sum, l) => sum + l.length + 1, 0);
  const start = Math.min(lineStart + column - 1, lineStart + (lines[line - 1] as string).length);
  const end = tokenEnd(value, start);
  // Trust the offsets only where this decoding agrees with the YAML parser's.
  if (decoded.value.slice(0, end) !== value.slice(0, end)) return undefined;
  const from = decoded.offsets[start] as number;
  const last = decoded.offsets[end - 1];
  const to = end > start && last !== undefined ? last + 1 : from;
  return { from, to: Math.max(to, from) };
}

/** The end of the token starting at `start`: `.field`, an identifier or number, else one char. */
function tokenEnd(value: string, start: number): number {
  if (start >= value.length) return start;
  let end = start;
  if (value[end] === '.') end++;
  while (end < value.length && /[A-Za-z0-9_]/.test(value[end] as string)) end++;
  return end === start ? start + 1 : end;
}
