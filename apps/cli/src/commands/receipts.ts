import type { ApiClient, ChainFindingReason, ChainVerification } from '@toolgate/contract';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { connect, withConnectionOptions } from '../api.ts';
import type { CliContext } from '../context.ts';
import { CliError, CliExit } from '../errors.ts';
import { formatData, type OutputFormat, outputOption } from '../output.ts';
import { resourceApi } from '../resources.ts';
import { registerReceiptsList } from './receipts-list.ts';

interface VerifyOptions {
  gateway?: string[];
  anchor?: string;
  output: OutputFormat;
  apiUrl?: string;
  token?: string;
}

/** A verification, with the first bad receipt as stored when the chain is broken. */
type VerifyResult = ChainVerification & { receipt?: unknown };

/** What each finding means for someone reading the report. */
const REASONS: Record<ChainFindingReason, string> = {
  hash_mismatch: 'its content does not hash to its recorded hash (the receipt was altered)',
  link_mismatch: 'the stored receipt is not where its link in the chain says (swapped or moved)',
  column_mismatch:
    'a list column differs from the receipt body (filters and the receipt list were doctored)',
  tool_set_missing: 'the tool set it references is not stored (deleted)',
  tool_set_mismatch: 'the tool set it references was edited (its content no longer hashes to it)',
  body_missing: 'the receipt is gone but its link remains (deleted)',
  seq_gap: 'no receipt at this place in the chain (deleted)',
  prev_hash_mismatch:
    "its prev_hash is not the previous receipt's hash (receipts were reordered, moved or removed)",
  successor_mismatch:
    'the next receipt links to another hash (this receipt was rewritten, its hashes recomputed)',
  anchor_mismatch: 'the chain is not the one anchored (rewritten up to the anchor)',
  truncated: 'the chain ends before the anchor (the newest receipts were deleted)',
  stand_in_mismatch:
    'the stand-in for a quarantined receipt does not continue the chain (the link was edited)',
};

export function registerReceipts(program: Command, ctx: CliContext): void {
  const receipts = program
    .command('receipts')
    .summary('work with receipts')
    .description(
      'Receipts are append-only; see `toolgate receipts list --help` and `toolgate receipts verify --help`.',
    );
  registerReceiptsList(receipts, ctx);
  withConnectionOptions(
    receipts
      .command('verify')
      .summary("verify gateways' receipt hash chains")
      .description(
        [
          "Asks the API to verify a gateway's receipt chain: every stored receipt is re-hashed",
          '(RFC 8785 canonical JSON) and linked to the previous one through prev_hash, every tool',
          'set is re-hashed against its content address, and every column the receipt list shows',
          'and filters on is compared with the receipt body. Prints the number of receipts verified',
          'and the chain head, or the first altered receipt, what was altered, and that receipt as',
          'stored. Without --gateway, every registered gateway is verified.',
          '',
          'A chain cut short at its newest end is still a valid chain: keep the head printed by an',
          'earlier run outside the database and pass it as --anchor SEQ:HASH to find that too.',
          '',
          'Exit codes: 0 every chain intact, 1 a chain is broken or the API failed, 2 wrong usage.',
        ].join('\n'),
      )
      .option('-g, --gateway <name...>', 'gateway name(s) (default: every registered gateway)')
      .option(
        '--anchor <seq:hash>',
        'a head recorded earlier (one gateway): the chain must still hold it at that seq',
      )
      .addOption(outputOption())
      .addHelpText(
        'after',
        [
          '',
          'Examples:',
          '  toolgate receipts verify --gateway edge-1',
          '  toolgate receipts verify -o json',
          '  toolgate receipts verify -g edge-1 --anchor 1205:sha256:6f1c…',
        ].join('\n'),
      ),
  ).action(async (options: VerifyOptions) => {
    const anchor = options.anchor === undefined ? undefined : parseAnchor(options.anchor);
    if (anchor && options.gateway?.length !== 1) {
      throw new CliError(
        '--anchor needs exactly one --gateway: an anchor belongs to one chain',
        [],
        2,
      );
    }
    const { client } = await connect(ctx, options);
    const gateways =
      options.gateway ??
      (await resourceApi(client, 'Gateway').list()).map((gateway) => gateway.metadata.name);
    const results: VerifyResult[] = [];
    for (const gateway of gateways) results.push(await verify(client, gateway, anchor));
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

/** `SEQ:HASH`, as printed after `head:` by an earlier run. */
function parseAnchor(value: string): { anchorSeq: string; anchorHash: string } {
  const match = /^([1-9][0-9]*):(sha256:[0-9a-f]{64})$/.exec(value);
  if (!match) {
    throw new CliError(
      '--anchor: must be SEQ:sha256:<64 hex digits>, as printed after head:',
      [],
      2,
    );
  }
  return { anchorSeq: match[1] as string, anchorHash: match[2] as string };
}

async function verify(
  client: ApiClient,
  gateway: string,
  anchor: { anchorSeq: string; anchorHash: string } | undefined,
): Promise<VerifyResult> {
  const result = (await client.call('receipts.verify', {
    params: { name: gateway },
    ...(anchor ? { query: anchor } : {}),
  })) as ChainVerification;
  if (result.valid || !result.firstBreak || result.firstBreak.id === null) return result;
  const stored = await client
    .call('receipts.get', { params: { id: result.firstBreak.id } })
    .catch(() => undefined);
  return stored ? { ...result, receipt: stored.receipt } : result;
}

function describe(result: VerifyResult): string {
  const ref = `gateway/${result.gateway}`;
  const count = `${result.checked} receipt${result.checked === 1 ? '' : 's'}`;
  if (result.valid) {
    const head = result.head ? `\n  head: ${result.head.seq}:${result.head.hash}` : '';
    return `${ref}: chain intact, ${count} verified${head}${describeHeld(result)}\n`;
  }
  const at = result.firstBreak;
  if (!at) return `${ref}: chain BROKEN\n`;
  const receipt = at.id === null ? 'no receipt stored' : `receipt ${at.id}`;
  const lines = [
    `${ref}: chain BROKEN at seq ${at.seq}, ${receipt}: ${at.reason}${at.field ? ` (${at.field})` : ''}`,
    `  ${REASONS[at.reason] ?? at.reason}`,
    `  ${at.message}`,
    `  expected: ${at.expected ?? '(none)'}`,
    `  actual:   ${at.actual ?? '(none)'}`,
    `  ${count} before it verified`,
  ];
  if (result.receipt !== undefined) {
    lines.push('  first altered receipt, as served:');
    const yaml = stringify(result.receipt, { lineWidth: 0 }).replace(/\n$/, '');
    lines.push(...yaml.split('\n').map((line) => `    ${line}`));
  }
  return `${lines.join('\n')}${describeHeld(result)}\n`;
}

/** Stand-ins for receipts the gateway quarantined: linked, but their bodies are not here. */
function describeHeld(result: VerifyResult): string {
  if (!result.held) return '';
  const { count, links } = result.held;
  const listed = links.map((link) => `\n    seq ${link.seq} ${link.id} (${link.reason})`).join('');
  const more = count > links.length ? `\n    … and ${count - links.length} more` : '';
  return (
    `\n  ${count} receipt${count === 1 ? ' is' : 's are'} held on the gateway (quarantined; ` +
    `linked, not verifiable here: see \`toolgate gateways quarantine ${result.gateway}\`):${listed}${more}`
  );
}
