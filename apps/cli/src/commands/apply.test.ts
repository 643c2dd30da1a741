import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startTestApi, type TestApi } from '../../../api/src/testing/test-api.ts';
import { type CliRun, runCli, tempDir, writeFiles } from '../testing/run-cli.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

/** The CLI against the test API, as an operator (flags, so no config file is involved). */
function toolgate(...args: string[]): Promise<CliRun> {
  return runCli([...args, '--api-url', api.url, '--token', api.operatorToken]);
}

function policyYaml(name: string, options: { priority?: number; tool?: string } = {}): string {
  return [
    'apiVersion: toolgate.dev/v1',
    'kind: MediationPolicy',
    'metadata:',
    `  name: ${name}`,
    '  labels: {team: platform}',
    'spec:',
    `  priority: ${options.priority ?? 5}`,
    '  rules:',
    '    - id: hide-pr',
    '      action: hide',
    '      match:',
    `        name: ${options.tool ?? 'create_pull_request'}`,
    '',
  ].join('\n');
}

async function livePolicy(name: string) {
  const response = await api.fetch(`/apis/toolgate.dev/v1/mediationpolicies/${name}`, {
    token: api.operatorToken,
  });
  return response.status === 404
    ? undefined
    : ((await response.json()) as {
        metadata: { generation: number; resourceVersion: string };
        spec: { priority: number };
      });
}

describe('toolgate apply', () => {
  it('creates, updates and leaves unchanged objects', async () => {
    const dir = await writeFiles(tempDir(), { 'p.yaml': policyYaml('apply-cycle') });
    const file = join(dir, 'p.yaml');

    const created = await toolgate('apply', '-f', file);
    expect(created).toEqual({
      code: 0,
      stdout: 'mediationpolicy/apply-cycle created\n',
      stderr: '',
    });
    expect((await livePolicy('apply-cycle'))?.metadata.generation).toBe(1);

    const before = await livePolicy('apply-cycle');
    const again = await toolgate('apply', '-f', file);
    expect(again.stdout).toBe('mediationpolicy/apply-cycle unchanged\n');
    expect((await livePolicy('apply-cycle'))?.metadata.resourceVersion).toBe(
      before?.metadata.resourceVersion,
    );

    await writeFiles(dir, { 'p.yaml': policyYaml('apply-cycle', { priority: 9 }) });
    const updated = await toolgate('apply', '-f', file);
    expect(updated).toEqual({
      code: 0,
      stdout: 'mediationpolicy/apply-cycle configured\n',
      stderr: '',
    });
    const live = await livePolicy('apply-cycle');
    expect(live?.metadata.generation).toBe(2);
    expect(live?.spec.priority).toBe(9);
  });

  it('applies several documents of one file, identities before the gateways naming them', async () => {
    const dir = await writeFiles(tempDir(), {
      'stack.yaml': [
        'apiVersion: toolgate.dev/v1',
        'kind: Gateway',
        'metadata: {name: multi-edge, labels: {env: prod}}',
        'spec: {identity: multi-edge-identity}',
        '---',
        policyYaml('multi-policy'),
        '---',
        'apiVersion: toolgate.dev/v1',
        'kind: Identity',
        'metadata: {name: multi-edge-identity}',
        'spec: {type: service, roles: [gateway]}',
      ].join('\n'),
    });
    const run = await toolgate('apply', '-f', join(dir, 'stack.yaml'));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        'identity/multi-edge-identity created',
        'mediationpolicy/multi-policy created',
        'gateway/multi-edge created',
        '',
      ].join('\n'),
    );
    expect((await toolgate('apply', '-f', join(dir, 'stack.yaml'))).stdout).toBe(
      [
        'identity/multi-edge-identity unchanged',
        'mediationpolicy/multi-policy unchanged',
        'gateway/multi-edge unchanged',
        '',
      ].join('\n'),
    );
  });

  it('applies a folder recursively: .yaml, .yml and .json, nothing else', async () => {
    const dir = await writeFiles(tempDir(), {
      'a.yaml': policyYaml('folder-a'),
      'nested/deeper/b.yml': policyYaml('folder-b'),
      'nested/c.json': JSON.stringify(parse(policyYaml('folder-c'))),
      'nested/notes.txt': 'not a resource',
    });
    const run = await toolgate('apply', '-f', dir);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      [
        'mediationpolicy/folder-a created',
        'mediationpolicy/folder-c created',
        'mediationpolicy/folder-b created',
        '',
      ].join('\n'),
    );
  });

  it('writes nothing when one document is invalid, naming the file, document and field', async () => {
    const dir = await writeFiles(tempDir(), {
      'good.yaml': policyYaml('invalid-batch-good'),
      'mixed.yaml': `${policyYaml('invalid-batch-second')}---\n${policyYaml('invalid-batch-bad', { tool: '""' })}`,
    });
    const run = await toolgate('apply', '-f', dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      `${join(dir, 'mixed.yaml')}, document 2: MediationPolicy is invalid`,
    );
    expect(run.stderr).toContain('spec.rules[0].match.name: must not be empty');
    expect(await livePolicy('invalid-batch-good')).toBeUndefined();
    expect(await livePolicy('invalid-batch-second')).toBeUndefined();
  });

  it("writes nothing when the API's dry run refuses a document", async () => {
    const dir = await writeFiles(tempDir(), {
      'a.yaml': policyYaml('server-check-policy'),
      'b.yaml': [
        'apiVersion: toolgate.dev/v1',
        'kind: Gateway',
        'metadata: {name: server-check-edge}',
        'spec: {identity: nobody-here}',
        '',
      ].join('\n'),
    });
    const run = await toolgate('apply', '-f', dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${join(dir, 'b.yaml')}, document 1 (gateway/server-check-edge)`);
    expect(run.stderr).toContain('spec.identity: Identity "nobody-here" does not exist');
    expect(run.stderr).toContain('nothing was applied');
    expect(await livePolicy('server-check-policy')).toBeUndefined();
  });

  it('reports unreadable input and unknown kinds', async () => {
    const dir = await writeFiles(tempDir(), {
      'broken.yaml': 'kind: [unclosed',
      'kind.yaml': 'apiVersion: toolgate.dev/v1\nkind: Policy\nmetadata: {name: x}\nspec: {}\n',
    });
    const broken = await toolgate('apply', '-f', join(dir, 'broken.yaml'));
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('broken.yaml: invalid YAML');
    const kind = await toolgate('apply', '-f', join(dir, 'kind.yaml'));
    expect(kind.code).toBe(1);
    expect(kind.stderr).toContain('kind.yaml, document 1: kind: unknown kind "Policy"');
    const missing = await toolgate('apply', '-f', join(dir, 'nope'));
    expect(missing.stderr).toContain('nope: no such file or folder');
  });

  it('--dry-run validates and reports without writing; -o yaml prints the objects', async () => {
    const dir = await writeFiles(tempDir(), { 'p.yaml': policyYaml('dry-run-policy') });
    const dry = await toolgate('apply', '-f', dir, '--dry-run');
    expect(dry.stdout).toBe('mediationpolicy/dry-run-policy created (dry run)\n');
    expect(await livePolicy('dry-run-policy')).toBeUndefined();

    const applied = await toolgate('apply', '-f', dir, '-o', 'yaml');
    expect(applied.code).toBe(0);
    const list = parse(applied.stdout) as {
      kind: string;
      items: Array<{ metadata: { name: string; generation: number } }>;
    };
    expect(list.kind).toBe('List');
    expect(list.items.map((i) => [i.metadata.name, i.metadata.generation])).toEqual([
      ['dry-run-policy', 1],
    ]);
  });

  it('honours a resourceVersion in the document (409 when stale), and writes nothing else', async () => {
    const dir = await writeFiles(tempDir(), { 'p.yaml': policyYaml('stale-policy') });
    await toolgate('apply', '-f', dir);
    const live = await livePolicy('stale-policy');
    await writeFiles(dir, {
      'p.yaml': policyYaml('stale-policy', { priority: 1 }).replace(
        '  labels:',
        `  resourceVersion: "${Number(live?.metadata.resourceVersion) - 1}"\n  labels:`,
      ),
    });
    const run = await toolgate('apply', '-f', dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('has been modified');
    expect((await livePolicy('stale-policy'))?.spec.priority).toBe(5);
  });
});

describe('toolgate get', () => {
  beforeAll(async () => {
    const dir = await writeFiles(tempDir(), {
      'p.yaml': `${policyYaml('get-one', { priority: 3 })}---\n${policyYaml('get-two')}`,
    });
    expect((await toolgate('apply', '-f', dir)).code).toBe(0);
  });

  it('prints a table by default', async () => {
    const run = await toolgate('get', 'policies');
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+MODE\s+PRIORITY\s+RULES\s+GENERATION\s+SELECTOR\s+AGE$/);
    expect(lines.find((l) => l.startsWith('get-one '))).toMatch(
      /^get-one\s+patch\s+3\s+1\s+1\s+<all gateways>\s+\d+s$/,
    );
    const one = await toolgate('get', 'mediationpolicy', 'get-two');
    expect(one.stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it('prints JSON and YAML that can be applied back', async () => {
    const json = await toolgate('get', 'mp', '-o', 'json');
    const list = JSON.parse(json.stdout) as {
      kind: string;
      items: Array<{ metadata: { name: string } }>;
    };
    expect(list.kind).toBe('List');
    expect(list.items.map((i) => i.metadata.name)).toEqual(
      expect.arrayContaining(['get-one', 'get-two']),
    );

    const yaml = await toolgate('get', 'policy/get-one', '-o', 'yaml');
    expect(yaml.code).toBe(0);
    const object = parse(yaml.stdout) as { kind: string; spec: { priority: number } };
    expect(object).toMatchObject({ kind: 'MediationPolicy', spec: { priority: 3 } });

    const dir = await writeFiles(tempDir(), { 'back.yaml': yaml.stdout, 'all.json': json.stdout });
    const back = await toolgate('apply', '-f', join(dir, 'back.yaml'));
    expect(back).toEqual({ code: 0, stdout: 'mediationpolicy/get-one unchanged\n', stderr: '' });
    const all = await toolgate('apply', '-f', join(dir, 'all.json'));
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('mediationpolicy/get-two unchanged\n');
    expect(all.stdout).not.toMatch(/created|configured/);
    // The same object twice in one apply is refused before anything is sent.
    const twice = await toolgate('apply', '-f', dir);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('mediationpolicy/get-one is also defined in');
  });

  it('knows every kind and its aliases', async () => {
    const contracts = await toolgate('get', 'contracts');
    expect(contracts.stdout).toMatch(/^NAME\s+TITLE\s+SIDE EFFECTS\s+AGE\n/);
    expect(contracts.stdout).toContain('wardwright.web_search.v1');
    const profiles = await toolgate('get', 'profile');
    expect(profiles.stdout).toMatch(/openai-chat\s+openai-chat\s+\d+/);
    const identities = await toolgate('get', 'identities');
    expect(identities.stdout).toMatch(
      /^NAME\s+TYPE\s+ROLES\s+AGE\nadmin\s+human\s+operator\s+\d+s\n/,
    );
    const gateways = await toolgate('get', 'gw', '-o', 'json');
    expect(JSON.parse(gateways.stdout).kind).toBe('List');
  });

  it('fails clearly for an unknown kind or name', async () => {
    const kind = await toolgate('get', 'widgets');
    expect(kind.code).toBe(1);
    expect(kind.stderr).toContain('unknown resource type "widgets"');
    const name = await toolgate('get', 'policy', 'nope');
    expect(name).toMatchObject({ code: 1, stdout: '' });
    expect(name.stderr).toBe('error: MediationPolicy "nope" not found\n');
    const format = await toolgate('get', 'policies', '-o', 'xml');
    expect(format.code).toBe(2);
    expect(format.stderr).toContain("'xml' is invalid");
  });
});

describe('toolgate diff', () => {
  it('exits 0 without output when the live object matches, 1 with a unified diff when not', async () => {
    const dir = await writeFiles(tempDir(), { 'p.yaml': policyYaml('diff-policy') });
    await toolgate('apply', '-f', dir);
    const same = await toolgate('diff', '-f', dir);
    expect(same).toEqual({ code: 0, stdout: '', stderr: '' });

    await writeFiles(dir, {
      'p.yaml': policyYaml('diff-policy', { priority: 7, tool: 'delete_repo' }),
    });
    const changed = await toolgate('diff', '-f', dir);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toBe('');
    const lines = changed.stdout.split('\n');
    expect(lines[0]).toBe('--- live/mediationpolicy/diff-policy');
    expect(lines[1]).toBe(
      `+++ local/mediationpolicy/diff-policy (${join(dir, 'p.yaml')}, document 1)`,
    );
    expect(lines[2]).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@$/);
    expect(lines).toContain('-  priority: 5');
    expect(lines).toContain('+  priority: 7');
    expect(lines).toContain('-        name: create_pull_request');
    expect(lines).toContain('+        name: delete_repo');
    // Defaults are filled in on both sides: mode and selector are not differences.
    expect(changed.stdout).not.toMatch(/^[-+]\s+mode:/m);
    expect(await livePolicy('diff-policy')).toMatchObject({ spec: { priority: 5 } });
  });

  it('shows a missing object as all additions', async () => {
    const dir = await writeFiles(tempDir(), { 'p.yaml': policyYaml('diff-new') });
    const run = await toolgate('diff', '-f', dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('--- live/mediationpolicy/diff-new (does not exist)');
    expect(run.stdout).toContain('+kind: MediationPolicy');
    expect(run.stdout.split('\n').filter((l) => l.startsWith('-') && !l.startsWith('---'))).toEqual(
      [],
    );
  });

  it('exits 2 on invalid input, like kubectl diff', async () => {
    const dir = await writeFiles(tempDir(), { 'p.yaml': policyYaml('diff-bad', { tool: '""' }) });
    const run = await toolgate('diff', '-f', dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('spec.rules[0].match.name');
  });
});
