import type { ResourceKind } from '@toolgate/contract';
import { ApiError } from '@toolgate/contract';
import type { Command } from 'commander';
import { connect, withConnectionOptions } from '../api.ts';
import type { CliContext } from '../context.ts';
import { CliError, CliExit, locatedError } from '../errors.ts';
import { formatData, type OutputFormat, outputOption } from '../output.ts';
import { loadResourceDocuments, type ResourceDocument } from '../resource-files.ts';
import { resourceApi, type StoredResource } from '../resources.ts';

interface ApplyOptions {
  filename: string[];
  dryRun?: boolean;
  output: OutputFormat;
  apiUrl?: string;
  token?: string;
}

type Outcome = 'created' | 'configured' | 'unchanged';

interface Planned {
  doc: ResourceDocument;
  live: StoredResource | undefined;
  outcome: Outcome;
  /** What the server's dry run returned (absent when it could not run yet, see below). */
  result: StoredResource | undefined;
}

/** Identities first (gateways name them), then what policies refer to, gateways last. */
const APPLY_ORDER: ResourceKind[] = [
  'Identity',
  'CapabilityContract',
  'ProviderProfile',
  'MediationPolicy',
  'Gateway',
];

export function registerApply(program: Command, ctx: CliContext): void {
  withConnectionOptions(
    program
      .command('apply')
      .summary('create or update resources from files (kubectl-style)')
      .description(
        [
          'Creates or updates the resources in the given files: MediationPolicy, Identity,',
          'CapabilityContract, ProviderProfile and Gateway documents, YAML or JSON, several',
          'documents per file; a folder is read recursively (*.yaml, *.yml, *.json).',
          '',
          'Every document is validated first, locally (field paths name the file and the',
          'document) and then by the API with a dry run; only when all of them pass is anything',
          'written, so an invalid document leaves nothing half-applied. The file is the source of',
          "truth: spec, labels and annotations replace the live object's. A metadata.resourceVersion",
          'in a document makes its update conditional on it (409 Conflict when stale).',
          '',
          'Prints one line per object: `<kind>/<name> created|configured|unchanged`.',
          'Exit codes: 0 applied, 1 invalid input or API error (nothing written), 2 wrong usage.',
        ].join('\n'),
      )
      .requiredOption('-f, --filename <path...>', 'files or folders to apply')
      .option('--dry-run', 'validate everything with the API and print what would change')
      .addOption(outputOption())
      .addHelpText(
        'after',
        [
          '',
          'Examples:',
          '  toolgate apply -f examples/policies/github-guardrails.yaml',
          '  toolgate apply -f policies/ --dry-run',
          '  toolgate apply -f policies/ -o yaml',
        ].join('\n'),
      ),
  ).action(async (options: ApplyOptions) => {
    await runApply(ctx, options);
  });
}

async function runApply(ctx: CliContext, options: ApplyOptions): Promise<void> {
  const docs = sortForApply(await loadResourceDocuments(options.filename));
  const { client } = await connect(ctx, options);

  // Phase 1: plan every document against the live state, with a server-side dry run.
  const planned: Planned[] = [];
  const problems: CliError[] = [];
  for (const doc of docs) {
    try {
      planned.push(await plan(client, doc, docs));
    } catch (error) {
      const located = locatedError(`${doc.where} (${doc.ref})`, error);
      if (!located) throw error;
      problems.push(located);
    }
  }
  if (problems.length > 0) {
    for (const problem of problems) {
      ctx.io.stderr(
        `error: ${problem.message}\n${problem.details.map((d) => `  ${d}\n`).join('')}`,
      );
    }
    ctx.io.stderr(
      `nothing was applied: ${problems.length} of ${docs.length} document(s) failed validation\n`,
    );
    throw new CliExit(1);
  }

  // Phase 2: write what changes, each update conditional on the version the plan saw.
  const applied: StoredResource[] = [];
  const written: string[] = [];
  const suffix = options.dryRun ? ' (dry run)' : '';
  for (const step of planned) {
    let object = step.result ?? step.live;
    if (!options.dryRun && step.outcome !== 'unchanged') {
      try {
        object = await write(client, step);
        written.push(step.doc.ref);
      } catch (error) {
        const done = written.length > 0 ? `; already written: ${written.join(', ')}` : '';
        const located = locatedError(`${step.doc.where} (${step.doc.ref})`, error);
        if (!located) throw error;
        if (error instanceof ApiError && error.status.reason === 'Conflict') {
          located.details.push('it changed since the dry run; run apply again');
        }
        throw new CliError(`${located.message}${done}`, located.details);
      }
    }
    if (object) applied.push(object);
    if (options.output === 'table') ctx.io.stdout(`${step.doc.ref} ${step.outcome}${suffix}\n`);
  }
  if (options.output !== 'table') {
    ctx.io.stdout(formatData({ apiVersion: 'v1', kind: 'List', items: applied }, options.output));
  }
}

function sortForApply(docs: ResourceDocument[]): ResourceDocument[] {
  return docs
    .map((doc, position) => ({ doc, position }))
    .sort(
      (a, b) =>
        APPLY_ORDER.indexOf(a.doc.kind) - APPLY_ORDER.indexOf(b.doc.kind) ||
        a.position - b.position,
    )
    .map(({ doc }) => doc);
}

async function plan(
  client: Parameters<typeof resourceApi>[0],
  doc: ResourceDocument,
  batch: ReadonlyArray<ResourceDocument>,
): Promise<Planned> {
  const api = resourceApi(client, doc.kind);
  const live = await api.get(doc.name).catch((error: unknown) => {
    if (error instanceof ApiError && error.httpStatus === 404) return undefined;
    throw error;
  });
  try {
    const result = live
      ? await api.replace(withVersion(doc, live), { dryRun: true })
      : await api.create(doc.input, { dryRun: true });
    const unchanged = live && result.metadata.resourceVersion === live.metadata.resourceVersion;
    return {
      doc,
      live,
      result,
      outcome: live ? (unchanged ? 'unchanged' : 'configured') : 'created',
    };
  } catch (error) {
    // A Gateway names its Identity, which the API checks exists. When that identity is in this
    // same apply (and is written first), the check is made against its document instead.
    if (doc.kind === 'Gateway' && identityInBatch(error, doc, batch)) {
      return { doc, live, result: undefined, outcome: live ? 'configured' : 'created' };
    }
    throw error;
  }
}

function identityInBatch(
  error: unknown,
  doc: ResourceDocument,
  batch: ReadonlyArray<ResourceDocument>,
): boolean {
  if (!(error instanceof ApiError) || error.status.reason !== 'Invalid') return false;
  const causes = error.status.details?.causes ?? [];
  if (causes.length === 0 || causes.some((c) => c.field !== 'spec.identity')) return false;
  const name = (doc.normalizedSpec as { identity: string }).identity;
  const identity = batch.find((d) => d.kind === 'Identity' && d.name === name);
  const roles = (identity?.normalizedSpec as { roles?: string[] } | undefined)?.roles ?? [];
  return roles.includes('gateway');
}

function withVersion(doc: ResourceDocument, live: StoredResource) {
  return {
    ...doc.input,
    metadata: {
      ...doc.input.metadata,
      resourceVersion: doc.input.metadata.resourceVersion ?? live.metadata.resourceVersion,
    },
  };
}

async function write(
  client: Parameters<typeof resourceApi>[0],
  step: Planned,
): Promise<StoredResource> {
  const api = resourceApi(client, step.doc.kind);
  return step.live ? api.replace(withVersion(step.doc, step.live)) : api.create(step.doc.input);
}
