import {
  type Document,
  isMap,
  isScalar,
  isSeq,
  type Node,
  parseDocument,
  type Scalar,
  stringify,
} from 'yaml';

type Plain = Record<string, unknown>;
const isPlainObject = (value: unknown): value is Plain =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The user's YAML with the values of `next` written into it, changing only what differs: keys
 * keep their order, comments and quoting stay where they were, new keys go last. Rules (list
 * items with an `id`) are matched by id, so removing one does not move another's comments.
 * The form view edits through this rather than re-stringifying the object.
 */
export function patchYaml(text: string, next: unknown): string {
  const doc = parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length > 0 || !isMap(doc.contents)) return stringify(next, { lineWidth: 0 });
  doc.contents = merge(doc, doc.contents, next) as typeof doc.contents;
  return doc.toString({ lineWidth: 0 });
}

function merge(doc: Document, node: unknown, value: unknown): unknown {
  if (isPlainObject(value) && isMap(node)) {
    for (const pair of [...node.items]) {
      const key = keyOf(pair.key);
      if (key === undefined || !Object.hasOwn(value, key)) node.delete(pair.key);
    }
    for (const [key, child] of Object.entries(value)) {
      if (child === undefined) continue;
      const pair = node.items.find((p) => keyOf(p.key) === key);
      if (pair) pair.value = merge(doc, pair.value, child);
      else node.add(doc.createPair(key, child));
    }
    return node;
  }
  if (Array.isArray(value) && isSeq(node)) {
    const byId = new Map<string, unknown>();
    for (const item of node.items) {
      const id = isMap(item) ? item.get('id') : undefined;
      if (typeof id === 'string' && !byId.has(id)) byId.set(id, item);
    }
    const used = new Set<unknown>();
    node.items = value.map((child, index) => {
      const id = isPlainObject(child) && typeof child.id === 'string' ? child.id : undefined;
      let previous = id !== undefined ? byId.get(id) : undefined;
      // No item with that id (a renamed or new rule): the one at the same place, if still free.
      if (previous === undefined || used.has(previous)) {
        const atIndex = node.items[index];
        previous = atIndex !== undefined && !used.has(atIndex) ? atIndex : undefined;
        const atIndexId = isMap(atIndex) ? atIndex.get('id') : undefined;
        if (
          typeof atIndexId === 'string' &&
          value.some((v) => isPlainObject(v) && v.id === atIndexId)
        )
          previous = undefined;
      }
      if (previous === undefined) return doc.createNode(child);
      used.add(previous);
      return merge(doc, previous, child);
    }) as typeof node.items;
    return node;
  }
  if (isScalar(node) && !isPlainObject(value) && !Array.isArray(value)) {
    if (node.value === value) return node;
    // Same type: the scalar keeps its style and comments. Another type gets a fresh node (a
    // quoted "5" turned into the number 5 must not stay quoted), with the comments moved over.
    if (typeof node.value === typeof value && node.value !== null) {
      node.value = value;
      return node;
    }
  }
  const fresh = doc.createNode(value) as Node;
  if (node && typeof node === 'object' && 'comment' in node) {
    const old = node as Scalar;
    if (old.comment) fresh.comment = old.comment;
    if (old.commentBefore) fresh.commentBefore = old.commentBefore;
  }
  return fresh;
}

function keyOf(key: unknown): string | undefined {
  if (isScalar(key)) return key.value === null ? undefined : String(key.value);
  return typeof key === 'string' ? key : undefined;
}
