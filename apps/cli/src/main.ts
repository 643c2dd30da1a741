import { ToolgateError } from '@toolgate/core';
import { Command, CommanderError } from 'commander';
import { registerEval } from './commands/eval.ts';

/** Exit codes: 0 success, 1 invalid input or failed operation, 2 wrong usage. */
export function buildProgram(): Command {
  const program = new Command('toolgate')
    .description('Toolgate: policy-controlled, receipted tool mediation for LLM agents')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerEval(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof ToolgateError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
