import { writeFile } from 'node:fs/promises';
import type { TokenSummary } from '@toolgate/contract';
import { type Command, InvalidArgumentError } from 'commander';
import { connect, withConnectionOptions } from '../api.ts';
import type { CliContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { formatData, type OutputFormat, outputOption, printAs, renderTable } from '../output.ts';

interface Connected {
  apiUrl?: string;
  token?: string;
  output: OutputFormat;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `3600`, `90s`, `30m`, `12h`, `30d` → seconds. */
export function parseTtl(value: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(value);
  if (!match)
    throw new InvalidArgumentError('must be seconds, or a number with s, m, h or d (30d)');
  return Number(match[1]) * (UNITS[match[2] || 's'] ?? 1);
}

export function registerTokens(program: Command, ctx: CliContext): void {
  const tokens = program
    .command('tokens')
    .summary("issue, list and revoke an identity's API tokens")
    .description(
      [
        'API tokens belong to an Identity. The API stores only their sha256 hash: the secret is',
        'shown once, when it is issued. Revoking a token stops it at once.',
      ].join('\n'),
    );

  withConnectionOptions(
    tokens
      .command('issue')
      .summary('issue a token (the secret is shown only now)')
      .description(
        [
          'Issues a token for the identity. The secret goes to standard output, alone on its line',
          '(for `TOKEN=$(toolgate tokens issue x)`), or with --token-file into a new file readable',
          'by you only (0600), printing just the token id. -o json / -o yaml print the whole',
          'answer, secret included.',
          '',
          'Exit codes: 0 issued, 1 unknown identity or API error, 2 wrong usage.',
        ].join('\n'),
      )
      .argument('<identity>', 'identity name')
      .option('--description <text>', 'what the token is for')
      .option(
        '--ttl <duration>',
        'lifetime: seconds, or 90m, 12h, 30d (default: no expiry)',
        parseTtl,
      )
      .option(
        '--token-file <path>',
        'write the secret to this file (mode 0600) instead of printing it',
      )
      .addOption(outputOption()),
  ).action(
    async (
      identity: string,
      options: Connected & { description?: string; ttl?: number; tokenFile?: string },
    ) => {
      const { client } = await connect(ctx, options);
      const issued = await client.call('tokens.issueToken', {
        params: { name: identity },
        body: {
          ...(options.description !== undefined ? { description: options.description } : {}),
          ...(options.ttl !== undefined ? { ttlSeconds: options.ttl } : {}),
        },
      });
      if (!issued) return;
      if (options.tokenFile) {
        await writeFile(options.tokenFile, `${issued.token}\n`, { mode: 0o600, flag: 'wx' }).catch(
          (error: NodeJS.ErrnoException) => {
            throw new CliError(
              `--token-file ${options.tokenFile}: ${error.code === 'EEXIST' ? 'already exists' : error.code}`,
            );
          },
        );
        const { token: _secret, ...summary } = issued;
        printAs(
          ctx.io,
          options.output,
          summary,
          () =>
            `token ${issued.id} issued for ${identity}${issued.expiresAt ? `, expires ${issued.expiresAt}` : ''}; secret written to ${options.tokenFile}\n`,
        );
        return;
      }
      if (options.output === 'table') ctx.io.stdout(`${issued.token}\n`);
      else ctx.io.stdout(formatData(issued, options.output));
    },
  );

  withConnectionOptions(
    tokens
      .command('list')
      .summary("list an identity's tokens (never the secrets)")
      .argument('<identity>', 'identity name')
      .addOption(outputOption()),
  ).action(async (identity: string, options: Connected) => {
    const { client } = await connect(ctx, options);
    const answer = await client.call('tokens.listTokens', { params: { name: identity } });
    const items = (answer?.items ?? []) as TokenSummary[];
    printAs(ctx.io, options.output, { items }, () =>
      items.length === 0
        ? `No tokens for ${identity}.\n`
        : renderTable(
            ['ID', 'DESCRIPTION', 'CREATED', 'EXPIRES', 'REVOKED', 'LAST USED'],
            items.map((t) => [
              t.id,
              t.description || '-',
              t.createdAt,
              t.expiresAt ?? 'never',
              t.revokedAt ?? '-',
              t.lastUsedAt ?? 'never',
            ]),
          ),
    );
  });

  withConnectionOptions(
    tokens
      .command('revoke')
      .summary('revoke a token; it stops working at once')
      .argument('<identity>', 'identity name')
      .argument('<token-id>', 'token id (tok_…), from `tokens list`')
      .addOption(outputOption()),
  ).action(async (identity: string, tokenId: string, options: Connected) => {
    const { client } = await connect(ctx, options);
    const revoked = await client.call('tokens.revokeToken', {
      params: { name: identity, tokenId },
    });
    printAs(ctx.io, options.output, revoked, () => `token ${tokenId} of ${identity} revoked\n`);
  });
}
