import { readFile } from 'node:fs/promises';
import { BadRequestError } from '@toolgate/core';
import { parseAllDocuments } from 'yaml';

/** Reads a JSON or YAML file (several YAML documents allowed) into plain values. */
export async function readDocuments(path: string): Promise<unknown[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new BadRequestError(`${path}: ${code === 'ENOENT' ? 'no such file' : String(error)}`);
  }
  return parseDocuments(text, path);
}

export function parseDocuments(text: string, source: string): unknown[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return [JSON.parse(text)];
    } catch (error) {
      throw new BadRequestError(`${source}: invalid JSON: ${(error as Error).message}`);
    }
  }
  const docs = parseAllDocuments(text, { prettyErrors: true });
  const values: unknown[] = [];
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    const [first] = doc.errors;
    if (first) throw new BadRequestError(`${source}: invalid YAML: ${first.message}`);
    const value = doc.toJS({ maxAliasCount: 100 });
    if (value !== null && value !== undefined) values.push(value);
  }
  if (values.length === 0) throw new BadRequestError(`${source}: the file is empty`);
  return values;
}

/** Exactly one document, for files that hold a single request or response. */
export async function readSingleDocument(path: string): Promise<unknown> {
  const docs = await readDocuments(path);
  if (docs.length !== 1) {
    throw new BadRequestError(`${path}: expected one document, found ${docs.length}`);
  }
  return docs[0];
}
