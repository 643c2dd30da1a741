import type { Command } from 'commander';
import { clientFor, connect, withConnectionOptions } from '../api.ts';
import { configPath, DEFAULT_API_URL, readConfig, writeConfig } from '../config.ts';
import type { CliContext } from '../context.ts';
import { CliError } from '../errors.ts';
import { type OutputFormat, outputOption, printAs } from '../output.ts';

interface LoginOptions {
  apiUrl?: string;
  token?: string;
  tokenStdin?: boolean;
  output: OutputFormat;
}

export function registerLogin(program: Command, ctx: CliContext): void {
  program
    .command('login')
    .summary('save the API URL and a token for later commands')
    .description(
      [
        'Checks the token against the API (whoami) and saves the API URL and the token in the',
        'config file, readable by you only (mode 0600): ~/.config/toolgate/config.json, or',
        'TOOLGATE_CONFIG. Later commands use it unless --api-url/--token or TOOLGATE_API_URL/',
        'TOOLGATE_TOKEN say otherwise; the saved token is only ever sent to the saved URL.',
        'Nothing is saved when the token does not work. The token is never printed.',
        '',
        'The token: --token-stdin (keeps it out of shell history and the process list),',
        '--token, or TOOLGATE_TOKEN. `pnpm start` prints the first operator token once.',
        '',
        'Exit codes: 0 logged in, 1 token rejected or API unreachable, 2 wrong usage.',
      ].join('\n'),
    )
    .option(
      '--api-url <url>',
      `API base URL (default: TOOLGATE_API_URL, the saved one, ${DEFAULT_API_URL})`,
    )
    .option('--token <token>', 'API token (prefer --token-stdin)')
    .option('--token-stdin', 'read the token from standard input')
    .addOption(outputOption())
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  toolgate login --api-url http://127.0.0.1:8080 --token-stdin < token.txt',
        '  echo "$TOKEN" | toolgate login --token-stdin',
      ].join('\n'),
    )
    .action(async (options: LoginOptions) => {
      if (options.token !== undefined && options.tokenStdin) {
        throw new CliError('give the token once: --token or --token-stdin');
      }
      const path = configPath(ctx.env);
      const saved = await readConfig(path).catch(() => undefined);
      const apiUrl = options.apiUrl ?? ctx.env.TOOLGATE_API_URL ?? saved?.apiUrl ?? DEFAULT_API_URL;
      if (!URL.canParse(apiUrl))
        throw new CliError(`--api-url: must be a URL such as ${DEFAULT_API_URL}`);
      const token = options.tokenStdin
        ? (await ctx.io.readStdin()).trim()
        : (options.token ?? ctx.env.TOOLGATE_TOKEN);
      if (!token) {
        throw new CliError('no token: pipe it to --token-stdin, or give --token or TOOLGATE_TOKEN');
      }
      const me = await clientFor({ apiUrl, token }).call('tokens.whoami');
      if (!me) throw new CliError('the API did not say who the token belongs to');
      await writeConfig(path, { apiUrl, token });
      printAs(
        ctx.io,
        options.output,
        { apiUrl, config: path, ...me },
        () =>
          `Logged in to ${apiUrl} as ${me.identity} (${me.type}; roles: ${me.roles.join(', ')}).\nSaved to ${path} (mode 0600).\n`,
      );
    });

  withConnectionOptions(
    program
      .command('whoami')
      .summary('show who the current token belongs to')
      .description(
        'Asks the API whose token this command would use (flags, environment or login config).\n\nExit codes: 0 ok, 1 no valid token or API unreachable, 2 wrong usage.',
      )
      .addOption(outputOption()),
  ).action(async (options: { apiUrl?: string; token?: string; output: OutputFormat }) => {
    const { client, connection } = await connect(ctx, options);
    const me = await client.call('tokens.whoami');
    if (!me) throw new CliError('the API did not say who the token belongs to');
    printAs(
      ctx.io,
      options.output,
      { apiUrl: connection.apiUrl, ...me },
      () => `${me.identity} (${me.type}; roles: ${me.roles.join(', ')}) at ${connection.apiUrl}\n`,
    );
  });
}
