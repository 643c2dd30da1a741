import { Command, CommanderError } from 'commander';
import { registerApply } from './commands/apply.ts';
import { registerApprovals } from './commands/approvals.ts';
import { registerDiff } from './commands/diff.ts';
import { registerEval } from './commands/eval.ts';
import { registerGateways } from './commands/gateways.ts';
import { registerGet } from './commands/get.ts';
import { registerHistory } from './commands/history.ts';
import { registerLogin } from './commands/login.ts';
import { registerMcp } from './commands/mcp.ts';
import { registerReceipts } from './commands/receipts.ts';
import { registerRollback } from './commands/rollback.ts';
import { registerTokens } from './commands/tokens.ts';
import type { CliContext } from './context.ts';
import { reportError } from './errors.ts';

/** Exit codes: 0 success, 1 invalid input or failed operation, 2 wrong usage (diff: see its help). */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command('toolgate')
    .description('Toolgate: policy-controlled, receipted tool mediation for LLM agents')
    .version('0.1.0')
    // Before any subcommand exists: subcommands copy these settings when they are added.
    .configureOutput({
      writeOut: (text) => ctx.io.stdout(text),
      writeErr: (text) => ctx.io.stderr(text),
      // Descriptions are written as lines of up to ~95 characters; never re-wrap them.
      getOutHelpWidth: () => 100,
      getErrHelpWidth: () => 100,
    })
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .addHelpText(
      'after',
      [
        '',
        'Connection (commands that talk to the API): --api-url and --token, else',
        'TOOLGATE_API_URL and TOOLGATE_TOKEN, else what `toolgate login` saved.',
        'Exit codes: 0 ok, 1 invalid input or failed operation, 2 wrong usage',
        '(diff: 1 means "differences found", 2 failure).',
      ].join('\n'),
    );
  registerApply(program, ctx);
  registerGet(program, ctx);
  registerDiff(program, ctx);
  registerHistory(program, ctx);
  registerRollback(program, ctx);
  registerReceipts(program, ctx);
  registerGateways(program, ctx);
  registerApprovals(program, ctx);
  registerMcp(program, ctx);
  registerLogin(program, ctx);
  registerTokens(program, ctx);
  registerEval(program, ctx);
  return program;
}

export async function main(argv: string[], ctx: CliContext): Promise<number> {
  try {
    await buildProgram(ctx).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 2;
    }
    const code = reportError(ctx.io, error);
    if (code !== undefined) return code;
    throw error;
  }
}
