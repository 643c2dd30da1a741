import { BadRequestError } from '@toolgate/core';

/**
 * The CLI's configuration from the environment: read once in `cli.ts`; nothing else reads
 * `process.env`. (Plain TypeScript rather than a zod schema: zod is not a dependency of this
 * app, and three optional strings need no more.)
 */
export interface CliEnv {
  /** API base URL; between `--api-url` and the config file in precedence. */
  TOOLGATE_API_URL?: string;
  /** Bearer token; between `--token` and the config file in precedence. Never printed. */
  TOOLGATE_TOKEN?: string;
  /** Where `login` writes and every command reads the config (default ~/.config/toolgate/config.json). */
  TOOLGATE_CONFIG?: string;
}

/** Every variable the CLI reads. */
export const CLI_ENV_KEYS = ['TOOLGATE_API_URL', 'TOOLGATE_TOKEN', 'TOOLGATE_CONFIG'] as const;

/** Picks the CLI's variables; empty values count as unset. Throws naming a malformed variable. */
export function parseCliEnv(env: Readonly<Record<string, string | undefined>>): CliEnv {
  const parsed: CliEnv = {};
  for (const key of CLI_ENV_KEYS) {
    const value = env[key];
    if (value !== undefined && value !== '') parsed[key] = value;
  }
  if (parsed.TOOLGATE_API_URL !== undefined && !URL.canParse(parsed.TOOLGATE_API_URL)) {
    throw new BadRequestError('TOOLGATE_API_URL: must be a URL such as http://127.0.0.1:8080');
  }
  return parsed;
}
