import type { Command } from 'commander';
import { connect, withConnectionOptions } from '../api.ts';
import type { CliContext } from '../context.ts';
import { objectRef } from '../kinds.ts';
import { type OutputFormat, outputOption, printAs } from '../output.ts';
import type { StoredResource } from '../resources.ts';
import { getPolicy, policyName, positiveInteger } from './history.ts';

interface RollbackOptions {
  toGeneration: number;
  output: OutputFormat;
  apiUrl?: string;
  token?: string;
}

export function registerRollback(program: Command, ctx: CliContext): void {
  withConnectionOptions(
    program
      .command('rollback')
      .summary("roll a policy back to an earlier generation's spec")
      .description(
        [
          'Like `kubectl rollout undo`: writes a new generation of the MediationPolicy whose spec is',
          'that of the given generation (history is never rewritten). When that spec is already the',
          'current one, nothing changes. Gateways pick the change up on their next sync.',
          '',
          'Exit codes: 0 ok, 1 unknown policy or generation, API error, 2 wrong usage.',
        ].join('\n'),
      )
      .argument('<name>', 'policy name (or mediationpolicy/<name>)')
      .requiredOption(
        '--to-generation <n>',
        'the generation whose spec to restore',
        positiveInteger,
      )
      .addOption(outputOption())
      .addHelpText(
        'after',
        [
          '',
          'Example:',
          '  toolgate history github-guardrails',
          '  toolgate rollback github-guardrails --to-generation 2',
        ].join('\n'),
      ),
  ).action(async (nameArg: string, options: RollbackOptions) => {
    const name = policyName(nameArg);
    const { client } = await connect(ctx, options);
    const before = await getPolicy(client, name);
    const after = (await client.call('policies.rollback', {
      params: { name },
      body: {
        toGeneration: options.toGeneration,
        // Conditional on what we just read: a concurrent change is a 409, not silently undone.
        resourceVersion: before.metadata.resourceVersion,
      },
    })) as StoredResource;
    const ref = objectRef('MediationPolicy', name);
    const changed = after.metadata.generation !== before.metadata.generation;
    printAs(ctx.io, options.output, after, () =>
      changed
        ? `${ref} rolled back to the spec of generation ${options.toGeneration} (now generation ${after.metadata.generation})\n`
        : `${ref} unchanged: generation ${before.metadata.generation} already has the spec of generation ${options.toGeneration}\n`,
    );
  });
}
