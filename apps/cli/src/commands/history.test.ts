import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import { type CliRun, runCli, tempDir, writeFiles } from '../testing/run-cli.ts';

let api: TestApi;
let dir: string;
beforeAll(async () => {
  api = await startTestApi();
  dir = tempDir();
});
afterAll(() => api?.close());

function toolgate(...args: string[]): Promise<CliRun> {
  return runCli([...args, '--api-url', api.url, '--token', api.operatorToken]);
}

/** Applies generation after generation of one policy, each hiding a different tool. */
async function applyGenerations(name: string, tools: string[]): Promise<void> {
  for (const tool of tools) {
    await writeFiles(dir, {
      [`${name}.yaml`]: [
        'apiVersion: toolgate.dev/v1',
        'kind: MediationPolicy',
        `metadata: {name: ${name}}`,
        `spec: {rules: [{id: hide, action: hide, match: {name: ${tool}}}]}`,
        '',
      ].join('\n'),
    });
    const run = await toolgate('apply', '-f', `${dir}/${name}.yaml`);
    expect(run.code).toBe(0);
  }
}

describe('toolgate history', () => {
  it('lists generations newest first, marking the current one', async () => {
    await applyGenerations('history-policy', ['a_tool', 'b_tool', 'c_tool']);
    const run = await toolgate('history', 'history-policy');
    expect(run.stderr).toBe('');
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^GENERATION\s+CURRENT\s+HASH\s+AUTHOR\s+CREATED$/);
    expect(lines[1]).toMatch(/^3\s+\*\s+sha256:[0-9a-f]{12}\s+admin\s+\d{4}-\d\d-\d\dT/);
    expect(lines[2]).toMatch(/^2\s+sha256:[0-9a-f]{12}\s+admin\s/);
    expect(lines[3]).toMatch(/^1\s+sha256:[0-9a-f]{12}\s+admin\s/);
    expect(lines).toHaveLength(4);

    const yaml = parse(
      (await toolgate('history', 'policy/history-policy', '-o', 'yaml')).stdout,
    ) as {
      items: Array<{ generation: number; spec: { rules: Array<{ match: { name: string } }> } }>;
    };
    expect(yaml.items.map((r) => [r.generation, r.spec.rules[0]?.match.name])).toEqual([
      [3, 'c_tool'],
      [2, 'b_tool'],
      [1, 'a_tool'],
    ]);
  });

  it('fails clearly for an unknown policy', async () => {
    const run = await toolgate('history', 'no-such-policy');
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toBe('error: MediationPolicy "no-such-policy" not found\n');
    const wrongKind = await toolgate('history', 'gateway/x');
    expect(wrongKind.stderr).toContain('only MediationPolicy objects have generations');
  });
});

describe('toolgate rollback', () => {
  it("writes a new generation with the old generation's spec", async () => {
    await applyGenerations('rollback-policy', ['first_tool', 'second_tool']);
    const run = await toolgate('rollback', 'rollback-policy', '--to-generation', '1');
    expect(run).toEqual({
      code: 0,
      stdout:
        'mediationpolicy/rollback-policy rolled back to the spec of generation 1 (now generation 3)\n',
      stderr: '',
    });
    const live = JSON.parse(
      (await toolgate('get', 'policy', 'rollback-policy', '-o', 'json')).stdout,
    );
    expect(live.metadata.generation).toBe(3);
    expect(live.spec.rules[0].match.name).toBe('first_tool');

    const again = await toolgate(
      'rollback',
      'rollback-policy',
      '--to-generation',
      '1',
      '-o',
      'json',
    );
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).metadata.generation).toBe(3);
    const table = await toolgate('rollback', 'rollback-policy', '--to-generation', '3');
    expect(table.stdout).toBe(
      'mediationpolicy/rollback-policy unchanged: generation 3 already has the spec of generation 3\n',
    );
  });

  it('refuses unknown generations and bad numbers', async () => {
    await applyGenerations('rollback-bad', ['x_tool']);
    const unknown = await toolgate('rollback', 'rollback-bad', '--to-generation', '9');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('PolicyRevision "rollback-bad@9" not found');
    const notNumber = await toolgate('rollback', 'rollback-bad', '--to-generation', 'latest');
    expect(notNumber.code).toBe(2);
    expect(notNumber.stderr).toContain('must be a generation number');
    const missing = await toolgate('rollback', 'rollback-bad');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--to-generation <n>'");
  });

  it('is refused for an auditor, with the reason', async () => {
    await applyGenerations('rollback-auditor', ['y_tool', 'z_tool']);
    const { token } = await api.identity('history-auditor', ['auditor']);
    const history = await runCli([
      'history',
      'rollback-auditor',
      '--api-url',
      api.url,
      '--token',
      token,
    ]);
    expect(history.code).toBe(0);
    const run = await runCli([
      'rollback',
      'rollback-auditor',
      '--to-generation',
      '1',
      '--api-url',
      api.url,
      '--token',
      token,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: .*history-auditor/);
    expect(run.stderr).not.toContain(token);
  });
});
