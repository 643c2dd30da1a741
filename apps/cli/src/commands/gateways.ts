import type { Gateway, ReceiptQuarantineStatus } from '@toolgate/core';
import type { Command } from 'commander';
import { connect, withConnectionOptions } from '../api.ts';
import type { CliContext } from '../context.ts';
import { type OutputFormat, outputOption, printAs, renderTable } from '../output.ts';

interface QuarantineOptions {
  output: OutputFormat;
  apiUrl?: string;
  token?: string;
}

/**
 * `toolgate gateways quarantine NAME`: the receipts a gateway holds because the API refused them
 * for good. The quarantine file is on the gateway's disk; the gateway reports its count and
 * newest entries in `Gateway.status.receiptQuarantine`, which is what this reads.
 */
export function registerGateways(program: Command, ctx: CliContext): void {
  const gateways = program
    .command('gateways')
    .summary('work with gateways')
    .description('Gateways report their state in Gateway.status; see the subcommands.');
  withConnectionOptions(
    gateways
      .command('quarantine')
      .argument('<gateway>', 'gateway name')
      .summary('list the receipts a gateway quarantined')
      .description(
        [
          'Lists the receipts the API refused for good (too large, invalid, a hash that does not',
          'match, ...), which the gateway moved to its quarantine file so that shipping goes on.',
          'Their place in the chain is held by a stand-in; their bodies stay on the gateway, in',
          '<DATA_DIR>/rejected-receipts.ndjson (one JSON object a line, the record in full).',
          'The gateway reports the count and the newest 10 entries; the file has them all.',
          '',
          'Exit codes: 0 listed (even when empty), 1 no such gateway or the API failed, 2 wrong usage.',
        ].join('\n'),
      )
      .addOption(outputOption())
      .addHelpText('after', ['', 'Examples:', '  toolgate gateways quarantine edge-1'].join('\n')),
  ).action(async (name: string, options: QuarantineOptions) => {
    const { client } = await connect(ctx, options);
    const gateway = (await client.call('gateways.get', { params: { name } })) as Gateway;
    const quarantine: ReceiptQuarantineStatus = gateway.status?.receiptQuarantine ?? {
      count: 0,
      recent: [],
    };
    printAs(ctx.io, options.output, quarantine, () => describe(name, quarantine));
  });
}

function describe(name: string, quarantine: ReceiptQuarantineStatus): string {
  if (quarantine.count === 0) return `gateway/${name}: no quarantined receipts\n`;
  const shown =
    quarantine.recent.length < quarantine.count
      ? ` (the newest ${quarantine.recent.length} below; the gateway's rejected-receipts.ndjson has all)`
      : '';
  const rows = quarantine.recent.map((entry) => [
    entry.quarantinedAt,
    entry.id,
    entry.reason,
    String(entry.bytes),
    entry.message ?? '',
  ]);
  return (
    `gateway/${name}: ${quarantine.count} quarantined receipt${quarantine.count === 1 ? '' : 's'}${shown}\n` +
    renderTable(['QUARANTINED', 'RECEIPT', 'REASON', 'BYTES', 'MESSAGE'], rows)
  );
}
