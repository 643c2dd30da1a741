import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RESOURCE_KINDS, type ResourceKind } from '@toolgate/contract';
import { BadRequestError, isJsonObject, parseOrThrow } from '@toolgate/core';
import { readDocuments } from './documents.ts';
import { CliError, locatedError } from './errors.ts';
import { API_WRITTEN_KINDS, isResourceKind, KIND_NAMES, objectRef } from './kinds.ts';
import type { ResourceInput } from './resources.ts';

const EXTENSIONS = /\.(ya?ml|json)$/i;

/** One document of an input file, and where it came from (for error messages). */
export interface SourcedDocument {
  file: string;
  /** 1-based position in its file. */
  index: number;
  value: unknown;
}

/** A document that passed local validation. */
export interface ResourceDocument {
  where: string;
  kind: ResourceKind;
  name: string;
  ref: string;
  /** The envelope to send, as written (the API applies defaults). */
  input: ResourceInput;
  /** The spec with the schema's defaults applied, as the API will store it. */
  normalizedSpec: unknown;
}

export function describeLocation(doc: Pick<SourcedDocument, 'file' | 'index'>): string {
  return `${doc.file}, document ${doc.index}`;
}

/**
 * The files behind `-f` arguments: a file as is; a folder recursively, `*.yaml`, `*.yml` and
 * `*.json` only, in name order (so the result is the same on every machine).
 */
export async function collectFiles(paths: ReadonlyArray<string>): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
      throw new BadRequestError(
        `${path}: ${error.code === 'ENOENT' ? 'no such file or folder' : (error.code ?? String(error))}`,
      );
    });
    if (info.isDirectory()) {
      const found = await filesUnder(path);
      if (found.length === 0) {
        throw new BadRequestError(`${path}: no .yaml, .yml or .json files in this folder`);
      }
      files.push(...found);
    } else files.push(path);
  }
  return files;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(path)));
    else if (entry.isFile() && EXTENSIONS.test(entry.name)) files.push(path);
  }
  return files;
}

/** Every document of every file (several YAML documents per file allowed). */
export async function readSourcedDocuments(
  paths: ReadonlyArray<string>,
): Promise<SourcedDocument[]> {
  const docs: SourcedDocument[] = [];
  for (const file of await collectFiles(paths)) {
    const values = await readDocuments(file);
    values.forEach((value, i) => {
      // A JSON `List` (what `get -o json` prints for several objects) holds its documents.
      if (isJsonObject(value) && typeof value.kind === 'string' && value.kind.endsWith('List')) {
        const items = Array.isArray(value.items) ? value.items : [];
        for (const item of items) docs.push({ file, index: i + 1, value: item });
      } else docs.push({ file, index: i + 1, value });
    });
  }
  return docs;
}

/**
 * Validates one document with its kind's schema, the same one the API uses, so a typo is
 * reported with its field path before anything is sent.
 */
export function parseResourceDocument(doc: SourcedDocument): ResourceDocument {
  const where = describeLocation(doc);
  const { value } = doc;
  if (!isJsonObject(value)) {
    throw new CliError(`${where}: expected an object with apiVersion, kind, metadata and spec`);
  }
  if (!isResourceKind(value.kind)) {
    throw new CliError(
      `${where}: kind: ${value.kind === undefined ? 'is required' : `unknown kind ${JSON.stringify(value.kind)}`}; one of ${KIND_NAMES.join(', ')}`,
    );
  }
  const kind = value.kind;
  if (API_WRITTEN_KINDS.has(kind)) {
    throw new CliError(
      `${where}: kind: ${kind} objects are written by the API, not applied (toolgate approvals approve|deny)`,
    );
  }
  let parsed: { metadata: ResourceInput['metadata']; spec: unknown };
  try {
    parsed = parseOrThrow(RESOURCE_KINDS[kind].input, value, kind) as typeof parsed;
  } catch (error) {
    throw locatedError(where, error) ?? error;
  }
  const metadata = value.metadata as ResourceInput['metadata'];
  return {
    where,
    kind,
    name: parsed.metadata.name,
    ref: objectRef(kind, parsed.metadata.name),
    input: {
      apiVersion: value.apiVersion as string,
      kind,
      metadata: {
        name: parsed.metadata.name,
        ...(metadata.labels ? { labels: metadata.labels } : {}),
        ...(metadata.annotations ? { annotations: metadata.annotations } : {}),
        ...(metadata.resourceVersion ? { resourceVersion: metadata.resourceVersion } : {}),
      },
      spec: value.spec,
    },
    normalizedSpec: parsed.spec,
  };
}

/** Reads and validates every document; refuses the same object twice. */
export async function loadResourceDocuments(
  paths: ReadonlyArray<string>,
): Promise<ResourceDocument[]> {
  const docs = (await readSourcedDocuments(paths)).map(parseResourceDocument);
  const seen = new Map<string, string>();
  for (const doc of docs) {
    const first = seen.get(doc.ref);
    if (first) throw new CliError(`${doc.where}: ${doc.ref} is also defined in ${first}`);
    seen.set(doc.ref, doc.where);
  }
  return docs;
}
