import type { ApiClient, ChainVerification } from '@toolgate/contract';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { connect, withConnectionOptions } from '../api.ts';
import type { CliContext } from '../context.ts';
import { CliExit } from '../errors.ts';
import { formatData, type OutputFormat, outputOption } from '../output.ts';
import { resourceApi } from '../resources.ts';

interface VerifyOptions {
  gateway?: string[];
  output: OutputFormat;
  apiUrl?: string;
  token?: string;
}

/** A verification, with the first bad receipt as stored when the chain is broken. */
type VerifyResult = ChainVerification & { receipt?: unknown };

const REASONS: Record<NonNullable<ChainVerification['firstBreak']>['reason'], string> = {
  hash_mismatch: 'its content does not hash to its recorded hash (the receipt was altered)',
  prev_hash_mismatch:
    "its prev_hash is not the previous receipt's hash (receipts were reordered, swapped or replaced)",
  seq_gap: 'the receipt before it in the chain is missing (deleted)',
};

export function registerReceipts(program: Command, ctx: CliContext): void {
  const receipts = program
    .command('receipts')
    .summary('work with receipts')
    .description('Receipts are append-only; see `toolgate receipts verify --help`.');
  withConnectionOptions(
    receipts
      .command('verify')
      .summary("verify gateways' receipt hash chains")
      .description(
        [
          "Asks the API to verify a gateway's receipt chain: every stored receipt is re-hashed",
          '(RFC 8785 canonical JSON) and linked to the previous one through prev_hash. Prints the',
          'number of receipts checked, or where the chain first breaks and that receipt as stored.',
          'Without --gateway, every registered gateway is verified.',
          '',
          'Exit codes: 0 every chain intact, 1 a chain is broken or the API failed, 2 wrong usage.',
        ].join('\n'),
      )
      .option('-g, --gateway <name...>', 'gateway name(s) (default: every registered gateway)')
      .addOption(outputOption())
      .addHelpText(
        'after',
        [
          '',
          'Examples:',
          '  toolgate receipts verify --gateway edge-1',
          '  toolgate receipts verify -o json',
        ].join('\n'),
      ),
  ).action(async (options: VerifyOptions) => {
    const { client } = await connect(ctx, options);
    const gateways =
      options.gateway ??
      (await resourceApi(client, 'Gateway').list()).map((gateway) => gateway.metadata.name);
    const results: VerifyResult[] = [];
    for (const gateway of gateways) results.push(await verify(client, gateway));
    if (options.output === 'table') {
      if (results.length === 0) ctx.io.stdout('No gateways registered: nothing to verify.\n');
      for (const result of results) ctx.io.stdout(describe(result));
    } else {
      ctx.io.stdout(
        formatData(options.gateway?.length === 1 ? results[0] : { items: results }, options.output),
      );
    }
    if (results.some((result) => !result.valid)) throw new CliExit(1);
  });
}

async function verify(client: ApiClient, gateway: string): Promise<VerifyResult> {
  const result = (await client.call('receipts.verify', {
    params: { name: gateway },
  })) as ChainVerification;
  if (result.valid || !result.firstBreak) return result;
  const stored = await client
    .call('receipts.get', { params: { id: result.firstBreak.id } })
    .catch(() => undefined);
  return stored ? { ...result, receipt: stored.receipt } : result;
}

function describe(result: VerifyResult): string {
  const ref = `gateway/${result.gateway}`;
  if (result.valid) {
    return `${ref}: chain intact, ${result.checked} receipt${result.checked === 1 ? '' : 's'} verified\n`;
  }
  const at = result.firstBreak;
  if (!at) return `${ref}: chain BROKEN\n`;
  const lines = [
    `${ref}: chain BROKEN at seq ${at.seq}, receipt ${at.id}: ${at.reason}`,
    `  ${REASONS[at.reason]}`,
    `  expected: ${at.expected ?? '(none)'}`,
    `  actual:   ${at.actual ?? '(none)'}`,
    `  ${result.checked} receipt${result.checked === 1 ? '' : 's'} before it verified`,
  ];
  if (result.receipt !== undefined) {
    lines.push('  first bad receipt:');
    const yaml = stringify(result.receipt, { lineWidth: 0 }).replace(/\n$/, '');
    lines.push(...yaml.split('\n').map((line) => `    ${line}`));
  }
  return `${lines.join('\n')}\n`;
}
