import { type ApiClient, ApiError, type PolicyRevision } from '@toolgate/contract';
import { type Command, InvalidArgumentError } from 'commander';
import { connect, withConnectionOptions } from '../api.ts';
import type { CliContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { resolveKind } from '../kinds.ts';
import { type OutputFormat, outputOption, printAs, renderTable } from '../output.ts';
import type { StoredResource } from '../resources.ts';
import { shortHash } from './get.ts';

interface HistoryOptions {
  output: OutputFormat;
  apiUrl?: string;
  token?: string;
}

export function registerHistory(program: Command, ctx: CliContext): void {
  withConnectionOptions(
    program
      .command('history')
      .summary("list a policy's generations")
      .description(
        [
          'Lists every generation of a MediationPolicy, newest first: its canonical spec hash, who',
          'wrote it and when. Each generation is an immutable revision; `rollback` makes a new',
          "generation from an old one's spec. -o json / -o yaml include each revision's spec.",
          '',
          'Exit codes: 0 ok, 1 not found or API error, 2 wrong usage.',
        ].join('\n'),
      )
      .argument('<name>', 'policy name (or mediationpolicy/<name>)')
      .addOption(outputOption())
      .addHelpText('after', ['', 'Example:', '  toolgate history github-guardrails'].join('\n')),
  ).action(async (nameArg: string, options: HistoryOptions) => {
    const name = policyName(nameArg);
    const { client } = await connect(ctx, options);
    const policy = await getPolicy(client, name);
    const revisions = await client.call('policies.revisions', { params: { name } });
    const items = (revisions?.items ?? []) as PolicyRevision[];
    printAs(ctx.io, options.output, { name, items }, () =>
      renderTable(
        ['GENERATION', 'CURRENT', 'HASH', 'AUTHOR', 'CREATED'],
        items.map((r) => [
          String(r.generation),
          r.generation === policy.metadata.generation ? '*' : '',
          shortHash(r.hash),
          r.author,
          r.createdAt,
        ]),
      ),
    );
  });
}

/** `x` or `mediationpolicy/x` (any alias of the kind) → `x`. */
export function policyName(text: string): string {
  const slash = text.indexOf('/');
  if (slash === -1) return text;
  if (resolveKind(text.slice(0, slash)) !== 'MediationPolicy') {
    throw new CliError(`only MediationPolicy objects have generations, not "${text}"`);
  }
  return text.slice(slash + 1);
}

export async function getPolicy(client: ApiClient, name: string): Promise<StoredResource> {
  try {
    return (await client.call('mediationPolicies.get', { params: { name } })) as StoredResource;
  } catch (error) {
    if (error instanceof ApiError && error.httpStatus === 404) {
      throw new CliError(`MediationPolicy "${name}" not found`);
    }
    throw error;
  }
}

/** A positive integer option value (commander turns the throw into a usage error, exit 2). */
export function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new InvalidArgumentError('must be a generation number (1, 2, …)');
  }
  return Number(value);
}
