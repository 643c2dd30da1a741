import { ApiError } from '@toolgate/contract';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { connect, withConnectionOptions } from '../api.ts';
import type { CliContext } from '../context.ts';
import { CliExit, reportError } from '../errors.ts';
import { loadResourceDocuments, type ResourceDocument } from '../resource-files.ts';
import { resourceApi, type StoredResource } from '../resources.ts';
import { unifiedDiff } from '../unified-diff.ts';

interface DiffOptions {
  filename: string[];
  apiUrl?: string;
  token?: string;
}

export function registerDiff(program: Command, ctx: CliContext): void {
  withConnectionOptions(
    program
      .command('diff')
      .summary('show how local files differ from the live resources')
      .description(
        [
          'Compares each document of the given files (or folders) with the live object of the same',
          'kind and name, and prints a unified diff of what `apply` would change: labels,',
          "annotations and spec, with the schema's defaults filled in on both sides and keys",
          'sorted, so only real differences show. A missing object diffs against nothing.',
          '',
          'Read-only: nothing is written (an auditor token is enough).',
          'Exit codes (like kubectl diff): 0 no differences, 1 differences found,',
          '2 invalid input, API error or wrong usage.',
        ].join('\n'),
      )
      .requiredOption('-f, --filename <path...>', 'files or folders to compare')
      .addHelpText(
        'after',
        [
          '',
          'Examples:',
          '  toolgate diff -f policies/',
          '  toolgate diff -f policy.yaml || echo "changed"',
        ].join('\n'),
      ),
  ).action(async (options: DiffOptions) => {
    try {
      await runDiff(ctx, options);
    } catch (error) {
      // Exit 1 means "different" here, so failures exit 2, as kubectl diff does.
      const code = reportError(ctx.io, error, 2);
      if (code === undefined) throw error;
      throw new CliExit(code);
    }
  });
}

async function runDiff(ctx: CliContext, options: DiffOptions): Promise<void> {
  const docs = await loadResourceDocuments(options.filename);
  const { client } = await connect(ctx, options);
  let different = 0;
  for (const doc of docs) {
    const live = await resourceApi(client, doc.kind)
      .get(doc.name)
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.httpStatus === 404) return undefined;
        throw error;
      });
    const text = unifiedDiff(
      {
        label: live ? `live/${doc.ref}` : `live/${doc.ref} (does not exist)`,
        text: live ? render(liveView(live)) : '',
      },
      { label: `local/${doc.ref} (${doc.where})`, text: render(localView(doc)) },
    );
    if (text !== '') {
      different++;
      ctx.io.stdout(text);
    }
  }
  if (different > 0) throw new CliExit(1);
}

function liveView(object: StoredResource) {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: {
      name: object.metadata.name,
      labels: object.metadata.labels ?? {},
      annotations: object.metadata.annotations ?? {},
    },
    spec: object.spec,
  };
}

function localView(doc: ResourceDocument) {
  return {
    apiVersion: doc.input.apiVersion,
    kind: doc.kind,
    metadata: {
      name: doc.name,
      labels: doc.input.metadata.labels ?? {},
      annotations: doc.input.metadata.annotations ?? {},
    },
    spec: doc.normalizedSpec,
  };
}

/** YAML with object keys sorted (the API's JSON storage does not keep the file's key order). */
function render(value: unknown): string {
  return stringify(sortKeys(JSON.parse(JSON.stringify(value))), { lineWidth: 0 });
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}
