import { join } from 'node:path';
import type { HostedTool } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import { type CliRun, REPOSITORY_ROOT, runCli } from '../testing/run-cli.ts';

let api: TestApi;
let auditorToken: string;

const EXAMPLE = join(REPOSITORY_ROOT, 'examples/hosted-tools/approved-web-search.yaml');

beforeAll(async () => {
  api = await startTestApi();
  auditorToken = (await api.identity('hosted-cli-auditor', ['auditor'])).token;
});
afterAll(() => api?.close());

function toolgate(token: string, ...args: string[]): Promise<CliRun> {
  return runCli([...args, '--api-url', api.url, '--token', token]);
}

describe('toolgate apply -f examples/hosted-tools/approved-web-search.yaml', () => {
  it('dry-runs, creates, then leaves the HostedTool unchanged', async () => {
    const dry = await toolgate(api.operatorToken, 'apply', '-f', EXAMPLE, '--dry-run');
    expect(dry).toEqual({
      code: 0,
      stdout: 'hostedtool/approved-web-search created (dry run)\n',
      stderr: '',
    });
    const created = await toolgate(api.operatorToken, 'apply', '-f', EXAMPLE);
    expect(created).toEqual({
      code: 0,
      stdout: 'hostedtool/approved-web-search created\n',
      stderr: '',
    });
    const again = await toolgate(api.operatorToken, 'apply', '-f', EXAMPLE);
    expect(again.stdout).toBe('hostedtool/approved-web-search unchanged\n');
  });

  it('lists it by every alias with its tool, endpoint host and timeout', async () => {
    for (const alias of ['hostedtools', 'hostedtool', 'ht', 'hosted', 'HostedTool']) {
      const listed = await toolgate(auditorToken, 'get', alias);
      expect(listed.code, listed.stderr).toBe(0);
      const [header, row] = listed.stdout.trim().split('\n');
      expect(header?.split(/\s{2,}/)).toEqual([
        'NAME',
        'TOOL',
        'ENDPOINT',
        'TIMEOUT',
        'RETRIES',
        'AGE',
      ]);
      expect(row?.split(/\s{2,}/).slice(0, 5)).toEqual([
        'approved-web-search',
        'approved_web_search',
        'search.internal.example',
        '5s',
        '1',
      ]);
    }
    const fetched = await toolgate(auditorToken, 'get', 'ht', 'approved-web-search', '-o', 'yaml');
    const object = parse(fetched.stdout) as HostedTool;
    expect(object.spec.endpoint.headers?.[0]).toEqual({
      name: 'Authorization',
      secretRef: { env: 'SEARCH_API_TOKEN' },
    });
    expect(object.spec.redact).toEqual(['debug.token', 'results[*].tracking']);
  });

  it('refuses an auditor writing it', async () => {
    const refused = await toolgate(auditorToken, 'apply', '-f', EXAMPLE);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('(auditor) may not call hostedTools.replace');
  });
});
