import { type ApiClient, ApiError, createClient } from '@toolgate/contract';
import type { Command } from 'commander';
import { type Connection, type ConnectionFlags, resolveConnection } from './config.ts';
import type { CliContext } from './context.ts';

/** Adds `--api-url` and `--token` to a command that talks to the API. */
export function withConnectionOptions(command: Command): Command {
  return command
    .option('--api-url <url>', 'API base URL (else TOOLGATE_API_URL, else the login config)')
    .option('--token <token>', 'API token (else TOOLGATE_TOKEN, else the login config)');
}

export interface Api {
  client: ApiClient;
  connection: Connection;
}

/** A typed client for the API the flags, environment and config point at. */
export async function connect(ctx: CliContext, flags: ConnectionFlags): Promise<Api> {
  const connection = await resolveConnection(flags, ctx.env);
  return { connection, client: clientFor(connection) };
}

export function clientFor(connection: Connection): ApiClient {
  const origin = new URL(connection.apiUrl).origin;
  return createClient({
    baseUrl: connection.apiUrl,
    ...(connection.token !== undefined ? { token: connection.token } : {}),
    // Transport failures name the API and the cause (ECONNREFUSED …), never the request.
    fetch: async (input, init) => {
      try {
        return await fetch(input, init);
      } catch (error) {
        throw new Error(`${origin} (${causeOf(error)})`);
      }
    },
  });
}

/** The lines an API error prints as: the Status message, each failing field, and a hint. */
export function describeApiError(error: ApiError): string[] {
  const { status } = error;
  const lines = [status.message];
  const causes = status.details?.causes ?? [];
  // A 422's message already lists its causes; print them one per line instead.
  if (causes.length > 0) {
    lines[0] = `${status.details?.kind ? `${status.details.kind} ` : ''}is invalid:`;
    for (const cause of causes) lines.push(`  ${cause.field}: ${cause.message}`);
  }
  if (status.reason === 'Unauthorized') {
    lines.push(
      'hint: pass --token, set TOOLGATE_TOKEN or run `toolgate login` (a token may be expired or revoked)',
    );
  }
  return lines;
}

export { ApiError };

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
