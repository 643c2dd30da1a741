import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { BadRequestError, isJsonObject } from '@toolgate/core';
import type { CliEnv } from './env.ts';

/** What `toolgate login` saves: where the API is and the token for it. */
export interface CliConfig {
  apiUrl: string;
  token: string;
}

/** The API a command talks to, and with which token (if any). */
export interface Connection {
  apiUrl: string;
  token?: string;
}

/** `--api-url` / `--token` as given on the command line. */
export interface ConnectionFlags {
  apiUrl?: string;
  token?: string;
}

/** What `pnpm start` and the API's defaults listen on. */
export const DEFAULT_API_URL = 'http://127.0.0.1:8080';

export function configPath(env: CliEnv): string {
  return env.TOOLGATE_CONFIG ?? join(homedir(), '.config', 'toolgate', 'config.json');
}

/**
 * The saved config, or undefined when there is none. Errors never quote the file's content:
 * it holds a token (V8's JSON errors would echo part of it).
 */
export async function readConfig(path: string): Promise<CliConfig | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new BadRequestError(`${path}: cannot read the config file (${codeOf(error)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadRequestError(`${path}: the config file is not valid JSON; run toolgate login`);
  }
  if (
    !isJsonObject(value) ||
    typeof value.apiUrl !== 'string' ||
    !URL.canParse(value.apiUrl) ||
    typeof value.token !== 'string' ||
    value.token === ''
  ) {
    throw new BadRequestError(
      `${path}: the config file needs "apiUrl" (a URL) and "token"; run toolgate login`,
    );
  }
  return { apiUrl: value.apiUrl, token: value.token };
}

/**
 * Writes the config readable by its owner only (0600, directory 0700): written to a private
 * temporary file first and renamed, so the token is never in a file others can read, not even
 * for a moment, and a crash leaves the old config intact.
 */
export async function writeConfig(path: string, config: CliConfig): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600, flag: 'w' });
  // `mode` applies only when the file is created; make sure of it either way.
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

/** Whether group or others may read the file (then the token should be considered exposed). */
export async function isReadableByOthers(path: string): Promise<boolean> {
  try {
    return ((await stat(path)).mode & 0o077) !== 0;
  } catch {
    return false;
  }
}

/**
 * Flags first, then TOOLGATE_API_URL / TOOLGATE_TOKEN, then the config file, then the default
 * URL. The config file's token is only ever sent to the config file's own API: pointing a
 * command at another URL must not hand that server our credentials.
 */
export async function resolveConnection(flags: ConnectionFlags, env: CliEnv): Promise<Connection> {
  const config = await readConfig(configPath(env));
  const apiUrl = flags.apiUrl ?? env.TOOLGATE_API_URL ?? config?.apiUrl ?? DEFAULT_API_URL;
  if (!URL.canParse(apiUrl)) {
    throw new BadRequestError(`--api-url: must be a URL such as ${DEFAULT_API_URL}`);
  }
  const token =
    flags.token ??
    env.TOOLGATE_TOKEN ??
    (config && sameApi(config.apiUrl, apiUrl) ? config.token : undefined);
  return { apiUrl, ...(token !== undefined ? { token } : {}) };
}

function sameApi(a: string, b: string): boolean {
  const normalize = (url: string) => new URL(url).href.replace(/\/+$/, '');
  return normalize(a) === normalize(b);
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? 'unknown error';
}
