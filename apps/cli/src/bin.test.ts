import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../api/src/testing/test-api.ts';
import { type CliRun, REPOSITORY_ROOT, tempDir, writeFiles } from './testing/run-cli.ts';

/**
 * `toolgate` as users call it from a checkout — the workspace's bin, `node_modules/.bin/toolgate`
 * (what `pnpm exec toolgate` and `npx toolgate` run) — without `pnpm run`'s wrapper, which adds an
 * ELIFECYCLE line to every non-zero exit. `diff`'s exit code is its answer: 0 same, 1 differs,
 * 2 failed.
 */

const run = promisify(execFile);
const BIN = join(REPOSITORY_ROOT, 'node_modules/.bin/toolgate');

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

async function spawnBin(command: string, args: string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd: REPOSITORY_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: tempDir(),
        TOOLGATE_API_URL: api.url,
        TOOLGATE_TOKEN: api.operatorToken,
        TOOLGATE_CONFIG: join(tempDir(), 'config.json'),
      },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function policy(tool: string): string {
  return [
    'apiVersion: toolgate.dev/v1',
    'kind: MediationPolicy',
    'metadata:',
    '  name: bin-diff',
    'spec:',
    '  rules:',
    '    - id: hide-one',
    '      action: hide',
    `      match: { name: ${tool} }`,
    '',
  ].join('\n');
}

describe.each([
  ['node_modules/.bin/toolgate', BIN, []],
  ['pnpm exec toolgate', 'pnpm', ['exec', 'toolgate']],
])('%s', (_name, command, prefix) => {
  const toolgate = (...args: string[]) => spawnBin(command, [...prefix, ...args]);

  it('diff: 0 when the same, 1 with the diff when different, 2 on failure — and nothing else printed', async () => {
    const dir = await writeFiles(tempDir(), { 'p.yaml': policy('delete_repo') });
    const file = join(dir, 'p.yaml');
    expect(await toolgate('apply', '-f', file)).toMatchObject({ code: 0, stderr: '' });
    expect(await toolgate('diff', '-f', file)).toEqual({ code: 0, stdout: '', stderr: '' });

    await writeFiles(dir, { 'p.yaml': policy('delete_branch') });
    const differs = await toolgate('diff', '-f', file);
    expect(differs.code).toBe(1);
    expect(differs.stdout).toContain('+        name: delete_branch');
    expect(differs.stderr).toBe('');

    const failed = await toolgate('diff', '-f', join(dir, 'missing.yaml'));
    expect(failed.code).toBe(2);
    expect(failed.stderr).toBe(`error: ${join(dir, 'missing.yaml')}: no such file or folder\n`);
  });

  it("says in --help what diff's exit codes mean", async () => {
    const help = await toolgate('diff', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('0 no differences, 1 differences found');
  });
});
