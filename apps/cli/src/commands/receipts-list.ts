import type { ReceiptQuery, ReceiptSummary } from '@toolgate/contract';
import { Surface } from '@toolgate/core';
import { type Command, Option } from 'commander';
import { connect, withConnectionOptions } from '../api.ts';
import type { CliContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { age, type OutputFormat, outputOption, printAs, renderTable } from '../output.ts';

interface ListOptions {
  apiUrl?: string;
  token?: string;
  output: OutputFormat;
  gateway?: string;
  identity?: string;
  tool?: string;
  toolContains?: string;
  rule?: string;
  policy?: string;
  outcome?: ReceiptQuery['outcome'];
  surface?: ReceiptQuery['surface'];
  since?: string;
  until?: string;
  order?: 'newest' | 'oldest';
  limit: string;
}

/** `toolgate receipts list`: receipt history, newest first, with the API's filters. */
export function registerReceiptsList(receipts: Command, ctx: CliContext): void {
  withConnectionOptions(
    receipts
      .command('list')
      .summary('list receipts, newest first, with filters')
      .description(
        [
          'Lists receipt summaries newest first: when, gateway, surface (openai-chat,',
          'anthropic-messages, mcp, …), model, HTTP status, outcome, identity and the tools called (a blocked or withheld one marked). Filters',
          'combine (all must match). `toolgate receipts list -o json` prints the summaries;',
          'the full receipt is in the console or `GET /apis/toolgate.dev/v1/receipts/{id}`.',
          '',
          'Exit codes: 0 listed (even when empty), 1 the API failed, 2 wrong usage.',
        ].join('\n'),
      )
      .option('-g, --gateway <name>', 'only receipts of this gateway')
      .option('--identity <name>', 'human, service or session')
      .option('--tool <name>', 'a tool declared or called')
      .option('--tool-contains <text>', 'a tool whose name contains this (any case)')
      .option('--rule <rule>', 'policy/rule, or a rule id')
      .option('--policy <name>', 'a policy that was applied')
      .addOption(
        new Option(
          '--outcome <outcome>',
          'ok, error, blocked, or withheld (a call held for approval)',
        ).choices(['ok', 'error', 'blocked', 'withheld']),
      )
      .addOption(
        new Option('--surface <surface>', 'the surface the request came in on').choices(
          Surface.options,
        ),
      )
      .option('--since <time>', 'received at or after (ISO 8601, with offset)')
      .option('--until <time>', 'received before (ISO 8601, with offset)')
      .addOption(
        new Option('--order <order>', 'newest or oldest first').choices(['newest', 'oldest']),
      )
      .option('--limit <n>', 'at most this many (1–500)', '50')
      .addOption(outputOption())
      .addHelpText(
        'after',
        [
          '',
          'Examples:',
          '  toolgate receipts list --surface mcp',
          '  toolgate receipts list --gateway edge-1 --outcome blocked --limit 20',
          '  toolgate receipts list --since 2026-03-01T00:00:00Z -o json',
          '  toolgate receipts list --tool-contains pull_request --order oldest',
        ].join('\n'),
      ),
  ).action(async (options: ListOptions) => {
    const limit = Number(options.limit);
    if (!/^[0-9]+$/.test(options.limit) || limit < 1 || limit > 500) {
      throw new CliError('--limit: must be a whole number from 1 to 500', [], 2);
    }
    const query: ReceiptQuery = { limit };
    for (const key of [
      'gateway',
      'identity',
      'tool',
      'toolContains',
      'rule',
      'policy',
      'since',
      'until',
    ] as const) {
      if (options[key] !== undefined) query[key] = options[key];
    }
    if (options.outcome !== undefined) query.outcome = options.outcome;
    if (options.surface !== undefined) query.surface = options.surface;
    if (options.order !== undefined) query.order = options.order;
    const { client } = await connect(ctx, options);
    const page = await client.call('receipts.list', { query });
    const items = page?.items ?? [];
    printAs(ctx.io, options.output, { items, metadata: page?.metadata ?? {} }, () =>
      items.length === 0 ? 'No receipts found.\n' : receiptTable(items),
    );
  });
}

function receiptTable(items: ReadonlyArray<ReceiptSummary>): string {
  const now = new Date();
  return renderTable(
    ['ID', 'AGE', 'GATEWAY', 'SURFACE', 'MODEL', 'STATUS', 'OUTCOME', 'IDENTITY', 'CALLED'],
    items.map((r) => [
      r.id,
      age(r.receivedAt, now),
      r.gateway,
      r.surface,
      r.model,
      String(r.status),
      r.outcome,
      r.identity.human ?? r.identity.service ?? r.identity.session ?? '<anonymous>',
      calledText(r),
    ]),
  );
}

/** The tools called, a withheld one with its state: `read_file,create_pull_request(blocked)`. */
function calledText(r: ReceiptSummary): string {
  if (r.callCount === 0) return '-';
  const names = r.calls.map((c) =>
    c.state === 'blocked' || c.state === 'deferred'
      ? `${c.name}(${c.state === 'blocked' ? 'blocked' : 'withheld'})`
      : c.name,
  );
  const more = r.callCount - r.calls.length;
  return `${names.join(',')}${more > 0 ? `,+${more}` : ''}`;
}
