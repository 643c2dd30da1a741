import { ApiError } from '@toolgate/contract';
import { ToolgateError, ValidationError } from '@toolgate/core';
import { describeApiError } from './api.ts';
import type { CliIo } from './context.ts';

/** An error to print as `error: message` with indented detail lines, then exit `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly details: string[] = [],
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A failure whose output is already written; `main` just exits with `exitCode`. */
export class CliExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
    this.name = 'CliExit';
  }
}

/**
 * An error located in an input document (`policies/a.yaml, document 2`), optionally about one
 * object (`mediationpolicy/x`): the field paths of a validation error, one per line.
 */
export function locatedError(where: string, error: unknown): CliError | undefined {
  if (error instanceof ValidationError) {
    return new CliError(
      `${where}: ${error.kind} is invalid`,
      error.causes.map((c) => `${c.field}: ${c.message}`),
    );
  }
  if (error instanceof ApiError) {
    const [first = '', ...rest] = describeApiError(error);
    return new CliError(
      `${where}: ${first.replace(/:$/, '')}`,
      rest.map((l) => l.trim()),
    );
  }
  if (error instanceof ToolgateError) return new CliError(`${where}: ${error.message}`);
  return undefined;
}

/** Writes a known error to stderr and returns its exit code; undefined for unknown errors. */
export function reportError(io: CliIo, error: unknown, exitCode?: number): number | undefined {
  if (error instanceof CliExit) return error.exitCode;
  if (error instanceof CliError) {
    io.stderr(`error: ${error.message}\n${error.details.map((d) => `  ${d}\n`).join('')}`);
    return exitCode ?? error.exitCode;
  }
  if (error instanceof ToolgateError) {
    io.stderr(`error: ${error.message}\n`);
    return exitCode ?? 1;
  }
  if (error instanceof ApiError) {
    const [first, ...rest] = describeApiError(error);
    io.stderr(`error: ${first}\n${rest.map((line) => `${line}\n`).join('')}`);
    return exitCode ?? 1;
  }
  return undefined;
}
