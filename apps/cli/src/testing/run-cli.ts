import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { CliEnv } from '../env.ts';
import { main } from '../main.ts';

/** Test support: the CLI run in-process with captured output, or as a real process. */

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export const REPOSITORY_ROOT = resolve(import.meta.dirname, '../../../..');

/** A private temporary folder for one test. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'toolgate-cli-'));
}

/** Writes files (path relative to `dir` → content) and returns `dir`. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<string> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

/**
 * `main(argv)` in this process. `env` replaces the environment entirely; by default the config
 * file points into a fresh temporary folder, so no test ever reads the developer's own login.
 */
export async function runCli(
  argv: string[],
  options: { env?: CliEnv; stdin?: string } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const env = options.env ?? { TOOLGATE_CONFIG: join(tempDir(), 'config.json') };
  const code = await main(argv, {
    env,
    io: {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      readStdin: async () => options.stdin ?? '',
    },
  });
  return { code, stdout, stderr };
}

/** The real executable: `node --import tsx apps/cli/src/cli.ts …`, from the repository root. */
export function spawnCli(
  argv: string[],
  options: { env: Record<string, string>; stdin?: string },
): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/cli/src/cli.ts', ...argv], {
      cwd: REPOSITORY_ROOT,
      // Only what the CLI needs: nothing of the test runner's environment leaks in.
      env: { PATH: process.env.PATH ?? '', HOME: tempDir(), ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
