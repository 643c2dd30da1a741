import { isNode, LineCounter, parseDocument } from 'yaml';

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
